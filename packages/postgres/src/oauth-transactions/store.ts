import { ConfigurationError, InvalidInputError } from '@portcullis/core'
import { transactions } from '@portcullis/core/oauth'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import { and, eq } from 'drizzle-orm'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement } from '../client/transaction.js'
import {
  type PurgeExpiredOAuthTransactionsOptions,
  type PurgeExpiredOAuthTransactionsReport,
  purgeExpiredOAuthTransactions,
} from './purge.js'
import { requireKey, requireTime, toRow, toSealed } from './rows.js'
import { oauthTransactionsTable as table } from './tables.js'

const { OAuthTransaction, OAuthTransactionStoreError, openOAuthTransaction, sealOAuthTransaction } =
  transactions

export interface PostgresOAuthTransactionStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db' | 'pool' | 'preparedStatements'>
  /** Required: the PKCE verifier and nonce are only ever stored as protector envelopes. */
  readonly protector: OAuthTransactionProtector
}

function isProtector(value: unknown): value is OAuthTransactionProtector {
  const candidate = value as Partial<OAuthTransactionProtector> | null | undefined
  return (
    typeof candidate?.protect === 'function' &&
    typeof candidate.unprotect === 'function' &&
    typeof candidate.activeKeyVersion === 'string'
  )
}

/**
 * The durable `OAuthTransactionStore`. Rows are keyed by the state digest, the browser-binding digest
 * and the provider; the PKCE verifier and nonce are `pe1.` envelopes. `consume` is one
 * `DELETE ... RETURNING` on the exact key: a lookup under another key matches nothing and burns
 * nothing, and of concurrent consumes on any number of app instances exactly one gets the row. An
 * expired row is burned and never returned; `purgeExpired` removes the ones nobody came back for.
 */
export class PostgresOAuthTransactionStore implements transactions.OAuthTransactionStore {
  readonly #client: PostgresOAuthTransactionStoreOptions['client']
  readonly #protector: OAuthTransactionProtector

  constructor(options: PostgresOAuthTransactionStoreOptions) {
    const client = options?.client
    if (typeof client?.db?.delete !== 'function' || typeof client.pool?.query !== 'function') {
      throw new ConfigurationError(
        'oauth.transaction_store.options',
        'PostgresOAuthTransactionStore needs a client from createPostgresClient',
      )
    }
    if (!isProtector(options.protector)) {
      throw new ConfigurationError(
        'oauth.transaction_store.protector_required',
        'PostgresOAuthTransactionStore requires an OAuthTransactionProtector',
      )
    }
    this.#client = client
    this.#protector = options.protector
  }

  async create(transaction: transactions.OAuthTransaction): Promise<void> {
    if (!(transaction instanceof OAuthTransaction)) {
      throw new InvalidInputError('oauth.transaction.record_invalid', 'create expects an OAuthTransaction')
    }
    const row = toRow(await sealOAuthTransaction(this.#protector, transaction))
    const inserted = await inStatement(() =>
      this.#client.db.insert(table).values(row).onConflictDoNothing().returning({ provider: table.provider }),
    )
    if (inserted.length === 0) {
      throw new OAuthTransactionStoreError(
        'oauth.transaction_store.duplicate',
        'conflict',
        'a transaction with this key already exists',
      )
    }
  }

  async consume(
    key: transactions.OAuthTransactionKey,
    now: Date,
  ): Promise<transactions.OAuthTransaction | null> {
    const { stateDigest, bindingDigest, provider } = requireKey(key)
    const at = requireTime(now, 'now')
    const [row] = await inStatement(() =>
      this.#client.db
        .delete(table)
        .where(
          and(
            eq(table.stateDigest, stateDigest),
            eq(table.bindingDigest, bindingDigest),
            eq(table.provider, provider),
          ),
        )
        .returning(),
    )
    // Burned either way: an expired transaction, or one whose envelopes do not open, is gone.
    if (row === undefined || at.getTime() >= row.expiresAt.getTime()) return null
    return openOAuthTransaction(this.#protector, toSealed(row))
  }

  /** Deletes expired transactions in bounded batches; see `purgeExpiredOAuthTransactions`. */
  purgeExpired(
    now: Date,
    options: Omit<PurgeExpiredOAuthTransactionsOptions, 'now'> = {},
  ): Promise<PurgeExpiredOAuthTransactionsReport> {
    return purgeExpiredOAuthTransactions(this.#client, { ...options, now })
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresOAuthTransactionStore {}'
  }
}
