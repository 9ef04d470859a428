import {
  type ConsumeRateLimitRequest,
  type RateLimitDecision,
  type RateLimitStore,
  rateLimitDecision,
  requireRateLimitKey,
  validateConsumeRateLimit,
} from '@portcullis/core/local-accounts'
import { eq, sql } from 'drizzle-orm'
import { PostgresUnavailableError } from '../client/database-error.js'
import { inStatement } from '../client/transaction.js'
import { type LocalStoreClient, type LocalStoreContext, preparedStatements, storeContext } from './client.js'
import { rateLimitsTable as limits } from './tables.js'

export interface PostgresRateLimitStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: LocalStoreClient
}

const now = sql`${sql.placeholder('now')}::timestamptz`
const ended = sql`${limits.resetAt} <= ${now}`

/**
 * One statement counts and opens windows: insert the key's first attempt, or, on conflict, add one to
 * the running window or start a new one when it has ended. The row lock of `ON CONFLICT DO UPDATE`
 * serializes concurrent attempts on every instance, so each is counted exactly once.
 */
const statements = preparedStatements((db, name) => ({
  consume: db
    .insert(limits)
    .values({
      limitKey: sql.placeholder('key'),
      attempts: 1,
      resetAt: sql`${sql.placeholder('resetAt')}::timestamptz`,
    })
    .onConflictDoUpdate({
      target: limits.limitKey,
      set: {
        attempts: sql`case when ${ended} then 1 else ${limits.attempts} + 1 end`,
        resetAt: sql`case when ${ended} then excluded.reset_at else ${limits.resetAt} end`,
      },
    })
    .returning({ attempts: limits.attempts, resetAt: limits.resetAt })
    .prepare(name('rate_limit_consume')),
}))

/**
 * The durable `RateLimitStore`, shared by every app instance on the database: fixed windows per key in
 * `portcullis_rate_limits`, counted by one atomic `INSERT ... ON CONFLICT DO UPDATE ... RETURNING`.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  readonly #context: LocalStoreContext

  constructor(options: PostgresRateLimitStoreOptions) {
    this.#context = storeContext(options, 'PostgresRateLimitStore')
  }

  async consume(request: ConsumeRateLimitRequest): Promise<RateLimitDecision> {
    const { key, limit, windowSeconds, now: at } = validateConsumeRateLimit(request)
    const resetAt = new Date(at.getTime() + windowSeconds * 1000)
    const [row] = await statements(this.#context, (prepared) =>
      prepared.consume.execute({ key, now: at, resetAt }),
    )
    if (row === undefined) throw new PostgresUnavailableError('the rate-limit statement returned no row')
    return rateLimitDecision(row.attempts, limit, row.resetAt)
  }

  async reset(key: string): Promise<void> {
    const limitKey = requireRateLimitKey(key)
    await inStatement(() => this.#context.db.delete(limits).where(eq(limits.limitKey, limitKey)))
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresRateLimitStore {}'
  }
}
