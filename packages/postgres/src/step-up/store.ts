import { ConfigurationError } from '@portcullis/core'
import {
  requireStepUpDate,
  requireStepUpDigest,
  StepUpError,
  StepUpErrorCodes,
  type StepUpRecord,
  type StepUpStore,
  validateStepUpRecord,
} from '@portcullis/core/step-up'
import { eq, lte } from 'drizzle-orm'
import { asStoreError, sqlStateOf } from '../client/database-error.js'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement } from '../client/transaction.js'
import { stepUpTable } from './tables.js'

export interface PostgresStepUpStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db'>
}

/**
 * The durable `StepUpStore`. It holds digests only (of the token and of the session binding), never a
 * token. `take` is one `DELETE ... RETURNING`, so of concurrent redemptions on any number of app
 * instances exactly one gets the record, and any lookup with the genuine token burns it.
 */
export class PostgresStepUpStore implements StepUpStore {
  readonly #db: PostgresStepUpStoreOptions['client']['db']

  constructor(options: PostgresStepUpStoreOptions) {
    if (typeof options?.client?.db?.delete !== 'function') {
      throw new ConfigurationError(
        'step-up.store_options',
        'PostgresStepUpStore needs a client from createPostgresClient',
      )
    }
    this.#db = options.client.db
  }

  async save(record: StepUpRecord): Promise<void> {
    const copy = validateStepUpRecord(record)
    try {
      await this.#db.insert(stepUpTable).values(copy)
    } catch (error) {
      if (sqlStateOf(error) === '23505') {
        throw new StepUpError(StepUpErrorCodes.duplicate, 'step-up digest already stored')
      }
      throw asStoreError(error)
    }
  }

  async take(digest: string): Promise<StepUpRecord | null> {
    const key = requireStepUpDigest(digest)
    const [row] = await inStatement(() =>
      this.#db.delete(stepUpTable).where(eq(stepUpTable.digest, key)).returning(),
    )
    return row === undefined ? null : Object.freeze({ ...row })
  }

  async purgeExpired(now: Date): Promise<number> {
    const at = requireStepUpDate(now, 'now')
    const removed = await inStatement(() =>
      this.#db.delete(stepUpTable).where(lte(stepUpTable.expiresAt, at)),
    )
    return removed.rowCount ?? 0
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresStepUpStore {}'
  }
}
