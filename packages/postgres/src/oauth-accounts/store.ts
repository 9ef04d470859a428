import { ConfigurationError } from '@portcullis/core'
import type { accounts } from '@portcullis/core/oauth'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import type { PostgresClient } from '../client/postgres-client.js'
import type { AccountStoreContext } from './context.js'
import * as directory from './directory.js'
import * as links from './links.js'
import * as reencryption from './reencryption.js'
import { requireId } from './request-input.js'
import * as retries from './retries.js'
import * as vault from './vault.js'

type Port = accounts.OAuthAccountStore
type Request<K extends keyof Port> = Port[K] extends (request: infer R) => unknown ? R : never

export interface PostgresOAuthAccountStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db' | 'pool' | 'preparedStatements'>
  readonly provider: string
  readonly clientId: string
  /** Required: retained tokens and retry records are only ever stored as protector envelopes. */
  readonly protector: OAuthTransactionProtector
}

/**
 * The durable `OAuthAccountStore` for one provider registration. Every operation is one Postgres
 * transaction (or one statement): identity and account rows are locked with `SELECT ... FOR UPDATE`,
 * concurrent first logins meet on the `(provider, issuer, subject)` unique key with `ON CONFLICT`,
 * refresh is a single conditional UPDATE on a version that never restarts, and retry claims lease rows
 * with `FOR UPDATE SKIP LOCKED`. It is the provider view of the one account schema
 * (`PostgresAccountStore.oauth(...)` makes one): an account's sign-in methods are its password and its
 * identities at every provider. Safe across processes and app instances. As an
 * `OAuthVaultReencryption` it lets `reencryptOAuthVault` re-seal its envelopes after a key rotation.
 */
export class PostgresOAuthAccountStore implements Port, accounts.OAuthVaultReencryption {
  readonly provider: string
  readonly clientId: string
  readonly #context: AccountStoreContext

  constructor(options: PostgresOAuthAccountStoreOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new ConfigurationError('oauth.account.store_options', 'PostgresOAuthAccountStore needs options')
    }
    if (
      typeof options.client?.db?.transaction !== 'function' ||
      typeof options.client.pool?.connect !== 'function'
    ) {
      throw new ConfigurationError(
        'oauth.account.store_options',
        'PostgresOAuthAccountStore needs a client from createPostgresClient',
      )
    }
    const protector = options.protector as Partial<OAuthTransactionProtector> | undefined
    if (typeof protector?.protect !== 'function' || typeof protector.unprotect !== 'function') {
      throw new ConfigurationError(
        'oauth.account.protector_required',
        'PostgresOAuthAccountStore needs a protector',
      )
    }
    try {
      this.provider = requireId(options.provider, 'provider')
      this.clientId = requireId(options.clientId, 'clientId')
    } catch (error) {
      throw new ConfigurationError('oauth.account.store_options', (error as Error).message)
    }
    this.#context = {
      db: options.client.db,
      pool: options.client.pool,
      preparedStatements: options.client.preparedStatements !== false,
      provider: this.provider,
      clientId: this.clientId,
      protector: options.protector,
    }
  }

  getAccount(accountId: string): Promise<accounts.AccountRecord | null> {
    return directory.getAccount(this.#context, accountId)
  }

  login(request: Request<'login'>): Promise<accounts.OAuthLoginOutcome> {
    return links.login(this.#context, request)
  }

  link(request: Request<'link'>): Promise<accounts.LinkOutcome> {
    return links.link(this.#context, request)
  }

  upgradeScopes(request: Request<'upgradeScopes'>): Promise<accounts.ScopeUpgradeOutcome> {
    return links.upgradeScopes(this.#context, request)
  }

  unlink(request: Request<'unlink'>): Promise<accounts.UnlinkOutcome> {
    return links.unlink(this.#context, request)
  }

  resolveLink(request: Request<'resolveLink'>): Promise<accounts.LinkedProviderAccount | null> {
    return links.resolveLink(this.#context, request)
  }

  getTokens(providerAccountId: string): Promise<accounts.StoredProviderTokens | null> {
    return vault.getTokens(this.#context, providerAccountId)
  }

  replaceTokens(request: Request<'replaceTokens'>): Promise<accounts.ProviderTokenReference | null> {
    return vault.replaceTokens(this.#context, request)
  }

  discardTokens(request: Request<'discardTokens'>): Promise<boolean> {
    return vault.discardTokens(this.#context, request)
  }

  stageRevocationRetry(
    request: Request<'stageRevocationRetry'>,
  ): Promise<{ readonly retryId: string } | null> {
    return retries.stageRevocationRetry(this.#context, request)
  }

  claimRevocationRetries(
    request: Request<'claimRevocationRetries'>,
  ): Promise<readonly accounts.ClaimedRevocationRetry[]> {
    return retries.claimRevocationRetries(this.#context, request)
  }

  completeRevocationRetry(request: Request<'completeRevocationRetry'>): Promise<boolean> {
    return retries.completeRevocationRetry(this.#context, request)
  }

  listStaleEnvelopes(
    request: accounts.ListStaleEnvelopesRequest,
  ): Promise<readonly accounts.StaleVaultEnvelope[]> {
    return reencryption.listStaleEnvelopes(this.#context, request)
  }

  rewriteEnvelope(request: accounts.RewriteEnvelopeRequest): Promise<boolean> {
    return reencryption.rewriteEnvelope(this.#context, request)
  }

  toJSON(): { provider: string; clientId: string } {
    return { provider: this.provider, clientId: this.clientId }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `PostgresOAuthAccountStore { provider: ${JSON.stringify(this.provider)}, clientId: ${JSON.stringify(this.clientId)} }`
  }
}
