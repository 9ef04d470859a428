import type { PostgresClient } from '../client/postgres-client.js'
import { boundedCount, deleteExpiredRows, OAUTH_TRANSACTIONS_EXPIRY } from '../maintenance/sweep.js'
import { requireTime } from './rows.js'

export interface PurgeExpiredOAuthTransactionsOptions {
  /** Transactions with `expires_at <= now` are deleted (consume already refuses them). */
  readonly now: Date
  /** Rows deleted per statement, 1-10000. Default 500. */
  readonly batchSize?: number
  /** Statements per call, 1-1000. Default 100. */
  readonly maxBatches?: number
}

export interface PurgeExpiredOAuthTransactionsReport {
  readonly deleted: number
  /** True when the call stopped at `maxBatches` with a full last batch: call again. */
  readonly more: boolean
}

const PURGE_OPTIONS = 'oauth.transaction_store.purge_options'

/**
 * Deletes expired OAuth transactions in batches of at most `batchSize` rows, each batch one statement
 * (its own short transaction) that skips rows another purge or a consume holds, until a batch comes back
 * short or `maxBatches` ran. Safe on every instance at once; needs no protector. `sweepExpired` does the
 * same for every table.
 */
export async function purgeExpiredOAuthTransactions(
  client: Pick<PostgresClient, 'pool'>,
  options: PurgeExpiredOAuthTransactionsOptions,
): Promise<PurgeExpiredOAuthTransactionsReport> {
  const now = requireTime(options?.now, 'now')
  const batchSize = boundedCount(options.batchSize, 500, 10_000, 'batchSize', PURGE_OPTIONS)
  const maxBatches = boundedCount(options.maxBatches, 100, 1000, 'maxBatches', PURGE_OPTIONS)
  return deleteExpiredRows(client, OAUTH_TRANSACTIONS_EXPIRY, now, batchSize, maxBatches)
}
