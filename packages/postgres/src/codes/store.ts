import { ConfigurationError } from '@portcullis/core'
import {
  type ConsumeCodeOutcome,
  type ConsumeCodeRequest,
  codeDigestMatches,
  type IssueCodeRequest,
  type NewOneTimeCode,
  OneTimeCodeError,
  OneTimeCodeErrorCodes,
  type OneTimeCodeRecord,
  type OneTimeCodeStore,
  type RevokeCodesRequest,
  type SweepCodesRequest,
  validateConsumeRequest,
  validateIssueRequest,
  validateRevokeRequest,
  validateSweepRequest,
} from '@portcullis/core/codes'
import { and, eq, inArray, isNull, ne, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import type pg from 'pg'
import { sqlStateOf } from '../client/database-error.js'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement, inTransaction, type Transaction } from '../client/transaction.js'
import { insertOutboxEntries } from '../mail/outbox-insert.js'
import { deleteExpiredRows, ONE_TIME_CODES_EXPIRY } from '../maintenance/sweep.js'
import { oneTimeCodesTable } from './tables.js'

export interface PostgresOneTimeCodeStoreOptions {
  /** From `createPostgresClient` (directly or through a pooler in transaction mode); run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db' | 'pool'>
}

type Row = typeof oneTimeCodesTable.$inferSelect

function recordOf(row: Row): OneTimeCodeRecord {
  return Object.freeze({
    id: row.id,
    purpose: row.purpose as OneTimeCodeRecord['purpose'],
    accountId: row.accountId,
    address: row.address,
    digest: Buffer.from(row.digest).toString('base64url'),
    keyVersion: row.keyVersion,
    attempts: row.attempts,
    maxAttempts: row.maxAttempts,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    payload: row.payload,
  })
}

/**
 * A unique violation on the code's id is `codes.duplicate`; a code naming no account is
 * `codes.invalid_input`. Anything else (an outbox entry's duplicate id among them) passes through.
 */
function issueError(error: unknown): unknown {
  let name: unknown
  for (
    let current = error as { constraint?: unknown; cause?: unknown } | undefined, depth = 0;
    depth < 5;
    depth += 1
  ) {
    if (typeof current !== 'object' || current === null) break
    name ??= current.constraint
    current = current.cause as typeof current
  }
  const state = sqlStateOf(error)
  if (state === '23505' && name === 'portcullis_one_time_codes_pkey') {
    return new OneTimeCodeError(OneTimeCodeErrorCodes.duplicate, 'a code with this id is already stored')
  }
  if (state === '23503' && name === 'portcullis_one_time_codes_account_id_fkey') {
    return new OneTimeCodeError(OneTimeCodeErrorCodes.invalidInput, 'code.accountId names no account')
  }
  return error
}

/** Inserts a validated new code (`validateNewCode`) inside the caller's transaction. */
async function insertCodeRow(tx: Transaction, code: NewOneTimeCode): Promise<void> {
  await tx.insert(oneTimeCodesTable).values({
    ...code,
    digest: Buffer.from(code.digest, 'base64url'),
    attempts: 0,
  })
}

/**
 * Writes the code a change carries (a sign-up's verification code, `createAccount({ code })`) inside
 * the change's transaction, so both commit or roll back together; the account is new, so no code is
 * superseded. A stored id is `codes.duplicate`, which rolls the whole transaction back.
 */
export async function insertIssuedCode(tx: Transaction, code: NewOneTimeCode): Promise<void> {
  try {
    await insertCodeRow(tx, code)
  } catch (error) {
    throw issueError(error)
  }
}

/**
 * The durable `OneTimeCodeStore` (`portcullis_one_time_codes`, migration 13). It holds digests only.
 * `issue` is one transaction: the superseded codes go, the code and its outbox entries are written, or
 * nothing is. `consume` is one short transaction that locks the code's row (`SELECT ... FOR UPDATE`),
 * compares the digest in constant time, then deletes the row (consumed or exhausted) or counts the
 * attempt: of concurrent consumers on any number of instances exactly one wins, and concurrent wrong
 * codes are counted one after another. No session state is used, so it works through a pooler in
 * transaction mode. An account's codes go with the account (on delete cascade).
 */
export class PostgresOneTimeCodeStore implements OneTimeCodeStore {
  readonly #db: NodePgDatabase
  readonly #pool: pg.Pool

  constructor(options: PostgresOneTimeCodeStoreOptions) {
    const client = options?.client
    if (typeof client?.db?.transaction !== 'function' || typeof client.pool?.connect !== 'function') {
      throw new ConfigurationError(
        'codes.store_options',
        'PostgresOneTimeCodeStore needs a client from createPostgresClient',
      )
    }
    this.#db = client.db
    this.#pool = client.pool
  }

  async issue(request: IssueCodeRequest): Promise<void> {
    const { code, supersede, outbox } = validateIssueRequest(request)
    const table = oneTimeCodesTable
    await inTransaction(this.#pool, async (tx) => {
      try {
        if (supersede) {
          // Concurrent issues for one owner and purpose queue here, so the newest alone stays live.
          const owner = code.accountId === null ? `address:${code.address}` : `account:${code.accountId}`
          await tx.execute(
            sql`select pg_advisory_xact_lock(hashtextextended(${`portcullis-codes:${code.purpose}:${owner}`}, 0))`,
          )
          const sameOwner =
            code.accountId === null
              ? and(isNull(table.accountId), eq(table.address, code.address))
              : eq(table.accountId, code.accountId)
          // Never the new code's own id: a duplicate id must reach the insert and be refused there.
          await tx.delete(table).where(and(sameOwner, eq(table.purpose, code.purpose), ne(table.id, code.id)))
        }
        await insertCodeRow(tx, code)
        await insertOutboxEntries(tx, outbox)
      } catch (error) {
        // Thrown from the body, the mapped error rolls the whole issue back.
        throw issueError(error)
      }
    })
  }

  async consume(request: ConsumeCodeRequest): Promise<ConsumeCodeOutcome> {
    const { id, purpose, candidates, now } = validateConsumeRequest(request)
    const table = oneTimeCodesTable
    return inTransaction(this.#pool, async (tx): Promise<ConsumeCodeOutcome> => {
      const [row] = await tx.select().from(table).where(eq(table.id, id)).for('update')
      if (row === undefined || row.purpose !== purpose) return { outcome: 'not-found' }
      const record = recordOf(row)
      if (record.expiresAt.getTime() <= now.getTime()) return { outcome: 'expired' }
      if (codeDigestMatches(record, candidates)) {
        await tx.delete(table).where(eq(table.id, id))
        return { outcome: 'consumed', code: record }
      }
      const attempts = record.attempts + 1
      if (attempts >= record.maxAttempts) {
        await tx.delete(table).where(eq(table.id, id))
        return { outcome: 'exhausted' }
      }
      await tx.update(table).set({ attempts }).where(eq(table.id, id))
      return { outcome: 'mismatch', attemptsLeft: record.maxAttempts - attempts }
    })
  }

  async revoke(request: RevokeCodesRequest): Promise<number> {
    const { accountId, purposes } = validateRevokeRequest(request)
    const table = oneTimeCodesTable
    const owned = eq(table.accountId, accountId)
    const where = purposes === undefined ? owned : and(owned, inArray(table.purpose, [...purposes]))
    const removed = await inStatement(() => this.#db.delete(table).where(where))
    return removed.rowCount ?? 0
  }

  async sweep(request: SweepCodesRequest): Promise<number> {
    const { now, limit } = validateSweepRequest(request)
    const { deleted } = await deleteExpiredRows({ pool: this.#pool }, ONE_TIME_CODES_EXPIRY, now, limit, 1)
    return deleted
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresOneTimeCodeStore {}'
  }
}
