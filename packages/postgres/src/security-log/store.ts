import { ConfigurationError } from '@portcullis/core'
import {
  type AccountLogRequest,
  checkAccountRequest,
  checkAppend,
  checkSweepRequest,
  checkTypeRequest,
  encodeSecurityLogCursor,
  type SecurityLog,
  type SecurityLogEntry,
  type SecurityLogPage,
  type SecurityLogPosition,
  type SweepLogRequest,
  type TypeLogRequest,
} from '@portcullis/core/security-log'
import { and, desc, eq, gte, lt, type SQL, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement, type Transaction } from '../client/transaction.js'
import { securityLogTable as log, type SecurityLogRow } from './tables.js'

export interface PostgresSecurityLogOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db' | 'pool'>
}

function rowOf(entry: SecurityLogEntry) {
  return {
    occurredAt: entry.at,
    id: entry.id,
    type: entry.type,
    accountId: entry.accountId,
    actorId: entry.actorId,
    reason: entry.reason,
    sessionHandle: entry.sessionHandle,
    clientAddress: entry.clientAddress,
    clientAddressHash: entry.clientAddressHash,
    browser: entry.device?.browser ?? null,
    os: entry.device?.os ?? null,
    platform: entry.device?.platform ?? null,
    details: { ...entry.details },
  }
}

function entryOf(row: SecurityLogRow): SecurityLogEntry {
  const device =
    row.browser === null && row.os === null && row.platform === null
      ? null
      : Object.freeze({ browser: row.browser, os: row.os, platform: row.platform })
  return Object.freeze({
    id: row.id,
    at: row.occurredAt,
    type: row.type,
    accountId: row.accountId,
    actorId: row.actorId,
    reason: row.reason,
    sessionHandle: row.sessionHandle,
    clientAddress: row.clientAddress,
    clientAddressHash: row.clientAddressHash,
    device,
    details: Object.freeze({ ...row.details }),
  })
}

/** Entries after `position` in newest-first order: one row comparison the index serves. */
const olderThan = (position: SecurityLogPosition | undefined): SQL | undefined =>
  position === undefined
    ? undefined
    : sql`(${log.occurredAt}, ${log.id}) < (${position.at.toISOString()}::timestamptz, ${position.id})`

function page(rows: readonly SecurityLogRow[], limit: number): SecurityLogPage {
  const entries = rows.slice(0, limit).map(entryOf)
  const last = entries.at(-1)
  return {
    entries,
    nextCursor: rows.length > limit && last !== undefined ? encodeSecurityLogCursor(last) : null,
  }
}

/**
 * The durable `SecurityLog` (migration 15, `portcullis_security_log`). `append` is one INSERT of the
 * whole batch (all or nothing) that keeps an entry already stored once; each read is one ordered index
 * range scan (by account, or by type and time) bounded by its limit; `sweep` deletes one batch of the
 * oldest entries, skipping rows another instance is sweeping.
 */
export class PostgresSecurityLog implements SecurityLog {
  readonly #client: PostgresSecurityLogOptions['client']

  constructor(options: PostgresSecurityLogOptions) {
    if (
      typeof options?.client?.db?.insert !== 'function' ||
      typeof options.client.pool?.query !== 'function'
    ) {
      throw new ConfigurationError(
        'postgres.security_log_options',
        'PostgresSecurityLog needs a client from createPostgresClient',
      )
    }
    this.#client = options.client
  }

  async append(entries: readonly SecurityLogEntry[]): Promise<void> {
    const checked = checkAppend(entries)
    if (checked.length === 0) return
    await inStatement(() => insert(this.#client.db, checked))
  }

  /**
   * Appends `entries` inside the caller's transaction (a drizzle transaction on this package's client,
   * or the application's own on the same database), so an entry commits or rolls back with the change
   * it records. Nothing is retried here: the caller's transaction decides.
   */
  async appendIn(tx: Transaction | NodePgDatabase, entries: readonly SecurityLogEntry[]): Promise<void> {
    const checked = checkAppend(entries)
    if (checked.length === 0) return
    await insert(tx, checked)
  }

  async listForAccount(request: AccountLogRequest): Promise<SecurityLogPage> {
    const { accountId, limit, after } = checkAccountRequest(request)
    const rows = await inStatement(() =>
      this.#client.db
        .select()
        .from(log)
        .where(and(eq(log.accountId, accountId), olderThan(after)))
        .orderBy(desc(log.occurredAt), desc(log.id))
        .limit(limit + 1),
    )
    return page(rows, limit)
  }

  async listByType(request: TypeLogRequest): Promise<SecurityLogPage> {
    const { type, since, until, limit, after } = checkTypeRequest(request)
    const rows = await inStatement(() =>
      this.#client.db
        .select()
        .from(log)
        .where(
          and(eq(log.type, type), gte(log.occurredAt, since), lt(log.occurredAt, until), olderThan(after)),
        )
        .orderBy(desc(log.occurredAt), desc(log.id))
        .limit(limit + 1),
    )
    return page(rows, limit)
  }

  async sweep(request: SweepLogRequest): Promise<number> {
    const { before, limit } = checkSweepRequest(request)
    const result = await inStatement(() =>
      this.#client.pool.query(SWEEP_STATEMENT, [before.toISOString(), limit]),
    )
    return result.rowCount ?? 0
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresSecurityLog {}'
  }
}

/** One bounded batch of the oldest entries before `$1`, skipping rows another sweep holds. */
export const SWEEP_STATEMENT = `delete from portcullis_security_log where ctid = any(array(
  select ctid from portcullis_security_log where occurred_at < $1 order by occurred_at limit $2 for update skip locked
))`

/**
 * Writes already validated entries (`validateSecurityLogEntries`) inside a store's transaction: what the
 * Postgres stores do with the `securityLog` of a change request (`WithSecurityLog`), once the change is
 * known to happen. An entry already stored is kept once.
 */
export async function insertSecurityLogEntries(
  tx: Transaction,
  entries: readonly SecurityLogEntry[],
): Promise<void> {
  if (entries.length > 0) await insert(tx, entries)
}

function insert(db: Transaction | NodePgDatabase, entries: readonly SecurityLogEntry[]) {
  return db.insert(log).values(entries.map(rowOf)).onConflictDoNothing()
}
