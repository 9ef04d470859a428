import { ConfigurationError, InvalidInputError } from '@portcullis/core'
import {
  type ClaimOutboxRequest,
  type FailOutboxRequest,
  MAX_OUTBOX_CLAIM,
  type MailOutboxStore,
  type OutboxEntry,
  OutboxErrorCodes,
  type OutboxRecord,
  type RescheduleOutboxRequest,
  validateClaimOutbox,
  validateFailOutbox,
  validateOutboxEntries,
  validateOutboxId,
  validateRescheduleOutbox,
} from '@portcullis/core/mail'
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import type pg from 'pg'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement, inTransaction } from '../client/transaction.js'
import { insertOutboxEntries } from './outbox-insert.js'
import { mailOutboxTable } from './tables.js'

export interface PostgresMailOutboxOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db' | 'pool'>
}

interface ClaimedRow extends Record<string, unknown> {
  readonly id: string
  readonly kind: string
  readonly account_id: string | null
  readonly envelope: string | null
  readonly created_at: Date | string
  readonly attempts: number | string
  readonly next_attempt_at: Date | string
  readonly last_error: string | null
  readonly due: Date | string
}

/** A row that failed for good: what an operator sees (never an envelope). */
export interface PostgresFailedOutboxRow {
  readonly id: string
  readonly kind: string
  readonly accountId: string | null
  readonly createdAt: Date
  readonly attempts: number
  readonly lastError: string | null
  readonly failedAt: Date
}

/**
 * The durable `MailOutboxStore` (`portcullis_mail_outbox`). A claim is ONE statement: it picks the due
 * pending rows oldest first with `FOR UPDATE SKIP LOCKED` (two drains never pick one row) and moves each
 * to the end of its lease (`next_attempt_at = lease_until = now + lease`), so a drain that dies releases
 * its rows when the lease ends. No session state: it works behind a transaction-mode pooler. Change
 * requests of `PostgresAccountStore` and `PostgresOneTimeCodeStore` write into the same table in their
 * own transactions (`insertOutboxEntries`).
 */
export class PostgresMailOutbox implements MailOutboxStore {
  readonly #db: NodePgDatabase
  readonly #pool: pg.Pool

  constructor(options: PostgresMailOutboxOptions) {
    if (
      typeof options?.client?.db?.insert !== 'function' ||
      typeof options.client.pool?.connect !== 'function'
    ) {
      throw new ConfigurationError(
        'mail.outbox_options',
        'PostgresMailOutbox needs a client from createPostgresClient',
      )
    }
    this.#db = options.client.db
    this.#pool = options.client.pool
  }

  async enqueue(entries: readonly OutboxEntry[]): Promise<void> {
    const valid = validateOutboxEntries(entries, 'entries')
    if (valid.length === 0) return
    await inTransaction(this.#pool, (tx) => insertOutboxEntries(tx, valid))
  }

  async claim(request: ClaimOutboxRequest): Promise<readonly OutboxRecord[]> {
    const { now, limit, leaseSeconds } = validateClaimOutbox(request)
    const until = new Date(now.getTime() + leaseSeconds * 1000)
    const t = mailOutboxTable
    const result = await inStatement(() =>
      this.#db.execute<ClaimedRow>(sql`
        with due as (
          select ${t.id} as id, ${t.nextAttemptAt} as due from ${t}
          where ${t.state} = 'pending' and ${t.nextAttemptAt} <= ${now.toISOString()}::timestamptz
          order by ${t.nextAttemptAt}, ${t.createdAt}, ${t.id}
          limit ${limit}
          for update skip locked
        )
        update ${t} set lease_until = ${until.toISOString()}::timestamptz,
          next_attempt_at = ${until.toISOString()}::timestamptz
        from due where ${t.id} = due.id
        returning ${t.id} as id, ${t.kind} as kind, ${t.accountId} as account_id, ${t.envelope} as envelope,
          ${t.createdAt} as created_at, ${t.attempts} as attempts, ${t.nextAttemptAt} as next_attempt_at,
          ${t.lastError} as last_error, due.due as due`),
    )
    const rows = result.rows.map((row) => ({
      due: new Date(row.due).getTime(),
      record: Object.freeze({
        id: row.id,
        kind: row.kind as OutboxRecord['kind'],
        accountId: row.account_id,
        envelope: row.envelope ?? '',
        createdAt: new Date(row.created_at),
        attempts: Number(row.attempts),
        nextAttemptAt: new Date(row.next_attempt_at),
        lastError: row.last_error,
      }),
    }))
    rows.sort(
      (a, b) =>
        a.due - b.due ||
        a.record.createdAt.getTime() - b.record.createdAt.getTime() ||
        (a.record.id < b.record.id ? -1 : 1),
    )
    return Object.freeze(rows.map((row) => row.record))
  }

  async complete(ids: readonly string[]): Promise<void> {
    if (!Array.isArray(ids) || ids.length > MAX_OUTBOX_CLAIM) {
      throw new InvalidInputError(
        OutboxErrorCodes.invalidRequest,
        `ids must be an array of at most ${MAX_OUTBOX_CLAIM} outbox ids`,
      )
    }
    const keys = [...new Set(ids.map((id: unknown) => validateOutboxId(id)))]
    if (keys.length === 0) return
    await inStatement(() =>
      this.#db
        .delete(mailOutboxTable)
        .where(and(inArray(mailOutboxTable.id, keys), eq(mailOutboxTable.state, 'pending'))),
    )
  }

  async reschedule(request: RescheduleOutboxRequest): Promise<void> {
    const { id, nextAttemptAt, error } = validateRescheduleOutbox(request)
    await inStatement(() =>
      this.#db
        .update(mailOutboxTable)
        .set({
          attempts: sql`${mailOutboxTable.attempts} + 1`,
          nextAttemptAt,
          leaseUntil: null,
          lastError: error,
        })
        .where(and(eq(mailOutboxTable.id, id), eq(mailOutboxTable.state, 'pending'))),
    )
  }

  async fail(request: FailOutboxRequest): Promise<void> {
    const { id, error, now } = validateFailOutbox(request)
    await inStatement(() =>
      this.#db
        .update(mailOutboxTable)
        .set({
          attempts: sql`${mailOutboxTable.attempts} + 1`,
          state: 'failed',
          envelope: null,
          leaseUntil: null,
          lastError: error,
          failedAt: now,
        })
        .where(and(eq(mailOutboxTable.id, id), eq(mailOutboxTable.state, 'pending'))),
    )
  }

  /** Messages that failed for good, newest failure first (at most `limit`, default 100). */
  async listFailed(limit = 100): Promise<readonly PostgresFailedOutboxRow[]> {
    const rows = await inStatement(() =>
      this.#db
        .select()
        .from(mailOutboxTable)
        .where(eq(mailOutboxTable.state, 'failed'))
        .orderBy(sql`${mailOutboxTable.failedAt} desc`)
        .limit(Math.min(Math.max(1, Math.trunc(limit)), 1000)),
    )
    return Object.freeze(
      rows.map((row) =>
        Object.freeze({
          id: row.id,
          kind: row.kind,
          accountId: row.accountId,
          createdAt: row.createdAt,
          attempts: row.attempts,
          lastError: row.lastError,
          failedAt: row.failedAt ?? row.createdAt,
        }),
      ),
    )
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresMailOutbox {}'
  }
}
