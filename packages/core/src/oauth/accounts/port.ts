import type { OutboxEntry } from '../../mail/outbox.js'
import type {
  AccountRecord,
  ClaimedRevocationRetry,
  LinkedProviderAccount,
  LinkOutcome,
  OAuthLoginOutcome,
  ProviderGrantInput,
  ProviderIdentity,
  ProviderTokenReference,
  RevocationTokenType,
  ScopeUpgradeOutcome,
  StoredProviderTokens,
  UnlinkOutcome,
} from './records.js'
import type { ProviderTokenSet } from './token-set.js'

/**
 * Accounts as far as OAuth needs them: existence and the sign-in-method count that keeps an account from
 * losing its last way to sign in. Accounts are created by password sign-up (`AccountStore.createAccount`)
 * or by a provider's first sign-in (`login` with `provisionUnknown`), in the one account schema the
 * `AccountStore` and its provider views share.
 */
export interface OAuthAccountDirectory {
  getAccount(accountId: string): Promise<AccountRecord | null>
}

/**
 * Exact identity linking on `(provider, issuer, subject)`. `tokens` present means "retain these,
 * encrypted"; absent means "retain nothing" and discards any tokens kept for the link.
 */
export interface OAuthIdentityLinks {
  /**
   * Signs in an identity. A linked identity gets its grant and token policy refreshed. An unknown one
   * is refused, or with `provisionUnknown` the account (security epoch 1, this identity its one sign-in
   * method), the link and the tokens are created together; concurrent first logins of one identity
   * provision exactly one account.
   */
  login(request: {
    readonly identity: ProviderIdentity
    readonly grant: ProviderGrantInput
    readonly tokens?: ProviderTokenSet
    readonly provisionUnknown: boolean
    readonly now: Date
  }): Promise<OAuthLoginOutcome>
  /**
   * Links an identity to an existing account (one more sign-in method); the owner linking it again
   * refreshes the grant. `outbox` (the security notification of the new link) is written in the same
   * transaction, only when the outcome is `linked`: never for a `relinked`, nor for a link refused
   * because the identity is linked elsewhere or the provider is linked already.
   */
  link(request: {
    readonly accountId: string
    readonly identity: ProviderIdentity
    readonly grant: ProviderGrantInput
    readonly tokens?: ProviderTokenSet
    readonly now: Date
    readonly outbox?: readonly OutboxEntry[] | undefined
  }): Promise<LinkOutcome>
  /** Replaces the grant (and token policy) of a link the account owns, for the same exact identity. */
  upgradeScopes(request: {
    readonly accountId: string
    readonly providerAccountId: string
    readonly identity: ProviderIdentity
    readonly grant: ProviderGrantInput
    readonly tokens?: ProviderTokenSet
    readonly now: Date
  }): Promise<ScopeUpgradeOutcome>
  /**
   * Removes a link the account owns for that provider, with its tokens, and moves the account's security
   * epoch, in one transaction; unless it is the account's last sign-in method (`final-method`).
   * `outbox` is written in the same transaction, only when the outcome is `unlinked`.
   */
  unlink(request: {
    readonly accountId: string
    readonly provider: string
    readonly providerAccountId: string
    readonly outbox?: readonly OutboxEntry[] | undefined
  }): Promise<UnlinkOutcome>
  resolveLink(request: {
    readonly accountId: string
    readonly provider: string
  }): Promise<LinkedProviderAccount | null>
}

/**
 * Retained provider tokens, encrypted with the protector under associated data naming the provider,
 * the client and the provider account. Versions never restart, so compare-and-swap has no ABA.
 */
export interface OAuthTokenVault {
  /** Decrypts the current tokens; null when none are retained. Does not check expiry. */
  getTokens(providerAccountId: string): Promise<StoredProviderTokens | null>
  /** Refresh compare-and-swap: stores `tokens` only if the current version is `expectedVersion`. */
  replaceTokens(request: {
    readonly providerAccountId: string
    readonly expectedVersion: number
    readonly tokens: ProviderTokenSet
  }): Promise<ProviderTokenReference | null>
  /** Deletes retained tokens, only at `expectedVersion` when given. True when something was deleted. */
  discardTokens(request: {
    readonly providerAccountId: string
    readonly expectedVersion?: number
  }): Promise<boolean>
}

/** Revocations that failed upstream: staged encrypted, then claimed and completed by a drain job. */
export interface OAuthRevocationRetries {
  /**
   * If the current version is `expectedVersion`: stores an encrypted retry holding `tokens`, and
   * discards the active tokens, together. Null (and no change) when the version moved.
   */
  stageRevocationRetry(request: {
    readonly providerAccountId: string
    readonly expectedVersion: number
    readonly tokens: ProviderTokenSet
    readonly failedTokenTypes: readonly RevocationTokenType[]
    readonly occurredAt: Date
  }): Promise<{ readonly retryId: string } | null>
  /** Leases up to `limit` retries that are unclaimed or whose lease ended at or before `now`, oldest first. */
  claimRevocationRetries(request: {
    readonly now: Date
    readonly leaseSeconds: number
    readonly limit: number
  }): Promise<readonly ClaimedRevocationRetry[]>
  /** Deletes a retry, only for the holder of its latest claim. */
  completeRevocationRetry(request: { readonly retryId: string; readonly claim: string }): Promise<boolean>
}

/**
 * The durable boundary for linked provider accounts, for one provider registration (`provider`,
 * `clientId`). Every operation is one database transaction in a durable implementation: it either
 * happens entirely or not at all, and concurrent callers see it happen at one instant.
 */
export interface OAuthAccountStore
  extends OAuthAccountDirectory,
    OAuthIdentityLinks,
    OAuthTokenVault,
    OAuthRevocationRetries {
  readonly provider: string
  readonly clientId: string
}
