import { InvalidInputError } from '@portcullis/core'
import { recordExpiredImpersonations } from '@portcullis/core/impersonation'
import { SECURITY_LOG_RETENTION_DAYS } from '@portcullis/core/security-log'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement } from '../client/transaction.js'
import { PostgresSecurityLog } from '../security-log/store.js'

/** A table whose rows die at a time, and the condition (on `$1`, the sweep's `now`) that says so. */
export interface ExpiringTable {
  readonly table: string
  readonly expired: string
  /** The column the batch walks in order (indexed), oldest first. */
  readonly order: string
}

/**
 * Every table with rows that expire. Rows past expiry are already refused by their store; the sweep only
 * reclaims the space. Completed revocation retries are deleted when completed, so they need no sweep.
 */
export const OAUTH_TRANSACTIONS_EXPIRY: ExpiringTable = {
  table: 'portcullis_oauth_transactions',
  expired: 'expires_at <= $1',
  order: 'expires_at',
}

/** One-time codes: an expired code is refused by `consume` already; the sweep reclaims the row. */
export const ONE_TIME_CODES_EXPIRY: ExpiringTable = {
  table: 'portcullis_one_time_codes',
  expired: 'expires_at <= $1',
  order: 'expires_at',
}

/**
 * Mail that failed for good is kept (without its envelope) for operators for 30 days after it failed;
 * pending mail is never swept (the drain decides when a message is too old to send).
 */
export const FAILED_MAIL_RETENTION: ExpiringTable = {
  table: 'portcullis_mail_outbox',
  expired: "state = 'failed' and failed_at <= $1::timestamptz - interval '30 days'",
  order: 'failed_at',
}

export const EXPIRING_TABLES: readonly ExpiringTable[] = Object.freeze([
  OAUTH_TRANSACTIONS_EXPIRY,
  { table: 'portcullis_step_up_credentials', expired: 'expires_at <= $1', order: 'expires_at' },
  // A session dies at its idle expiry at the latest (the idle expiry never passes the absolute one).
  { table: 'portcullis_sessions', expired: 'idle_expires_at <= $1', order: 'idle_expires_at' },
  // A family takes its tokens with it (on delete cascade); tokens are never swept alone, or a rotated
  // token would stop being recognised as reused while its family lives.
  {
    table: 'portcullis_refresh_families',
    expired: 'absolute_expires_at <= $1',
    order: 'absolute_expires_at',
  },
  { table: 'portcullis_rate_limits', expired: 'reset_at <= $1', order: 'reset_at' },
  { table: 'portcullis_local_account_invites', expired: 'expires_at <= $1', order: 'expires_at' },
  { table: 'portcullis_passkey_challenges', expired: 'expires_at <= $1', order: 'expires_at' },
  { table: 'portcullis_oauth_server_entries', expired: 'expires_at <= $1', order: 'expires_at' },
  ONE_TIME_CODES_EXPIRY,
  FAILED_MAIL_RETENTION,
])

const SWEEP_OPTIONS = 'postgres.sweep_options'

/**
 * The security log keeps entries for a retention period (`securityLogRetentionDays`, default 180), not
 * until an expiry of their own: its batches delete entries before `now` minus the retention.
 */
export const SECURITY_LOG_RETENTION: ExpiringTable = {
  table: 'portcullis_security_log',
  expired: 'occurred_at < $1',
  order: 'occurred_at',
}

export interface SweepOptions {
  /** Rows past this instant are deleted. Default: now. */
  readonly now?: Date
  /** Rows deleted per statement, 1-10000. Default 500. */
  readonly batchSize?: number
  /** Statements per table per call, 1-1000. Default 100. */
  readonly maxBatches?: number
  /** Days the security log keeps its entries, 1-36500. Default 180. */
  readonly securityLogRetentionDays?: number
}

export interface SweepReport {
  /** Rows deleted, per table. */
  readonly deleted: Readonly<Record<string, number>>
  /** True when some table stopped at `maxBatches` with a full last batch: call again. */
  readonly more: boolean
  /**
   * Impersonations past their bound whose end this sweep recorded (`impersonation.ended`, reason
   * `expired`; see `recordExpiredImpersonations`). 0 when the client has no drizzle `db`.
   */
  readonly impersonationsEnded: number
}

/** An optional count option, 1 to `max`; anything else is an invalid-input error with `code`. */
export function boundedCount(
  value: number | undefined,
  fallback: number,
  max: number,
  name: string,
  code: string,
): number {
  const chosen = value ?? fallback
  if (!Number.isSafeInteger(chosen) || chosen < 1 || chosen > max) {
    throw new InvalidInputError(code, `${name} must be an integer 1-${max}`)
  }
  return chosen
}

/**
 * Deletes one table's expired rows in batches of at most `batchSize`, each batch one statement (its
 * own short transaction) that skips rows another instance holds, so sweeps on several instances at once
 * neither wait on nor repeat each other.
 */
export async function deleteExpiredRows(
  client: Pick<PostgresClient, 'pool'>,
  table: ExpiringTable,
  now: Date,
  batchSize: number,
  maxBatches: number,
): Promise<{ deleted: number; more: boolean }> {
  const statement = `delete from ${table.table} where ctid = any(array(
    select ctid from ${table.table} where ${table.expired} order by ${table.order} limit $2 for update skip locked
  ))`
  let deleted = 0
  for (let batch = 0; batch < maxBatches; batch += 1) {
    const result = await inStatement(() => client.pool.query(statement, [now.toISOString(), batchSize]))
    const count = result.rowCount ?? 0
    deleted += count
    if (count < batchSize) return { deleted, more: false }
  }
  return { deleted, more: true }
}

/**
 * Deletes expired rows of every Portcullis table (OAuth transactions, step-up credentials, sessions,
 * refresh-token families, rate-limit windows, invites, passkey challenges, authorization-server entries, one-time codes) in bounded batches. Safe to schedule on every instance; the CLI's `sweep` runs it.
 */
export async function sweepExpired(
  client: Pick<PostgresClient, 'pool'>,
  options: SweepOptions = {},
): Promise<SweepReport> {
  const now = options.now ?? new Date()
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
    throw new InvalidInputError('postgres.sweep_options', 'now must be a valid Date')
  }
  const batchSize = boundedCount(options.batchSize, 500, 10_000, 'batchSize', SWEEP_OPTIONS)
  const maxBatches = boundedCount(options.maxBatches, 100, 1000, 'maxBatches', SWEEP_OPTIONS)
  const retentionDays = boundedCount(
    options.securityLogRetentionDays,
    SECURITY_LOG_RETENTION_DAYS,
    36_500,
    'securityLogRetentionDays',
    SWEEP_OPTIONS,
  )
  // Before the sessions go: an impersonation that ran out at its bound gets its end entry, once.
  const impersonationsEnded =
    'db' in client && client.db !== undefined
      ? await recordExpiredImpersonations(new PostgresSecurityLog({ client: client as PostgresClient }), {
          now,
        })
      : 0
  const deleted: Record<string, number> = {}
  let more = false
  for (const table of EXPIRING_TABLES) {
    const outcome = await deleteExpiredRows(client, table, now, batchSize, maxBatches)
    deleted[table.table] = outcome.deleted
    more ||= outcome.more
  }
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000)
  const logged = await deleteExpiredRows(client, SECURITY_LOG_RETENTION, cutoff, batchSize, maxBatches)
  deleted[SECURITY_LOG_RETENTION.table] = logged.deleted
  more ||= logged.more
  return { deleted, more, impersonationsEnded }
}
