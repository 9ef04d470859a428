import type { InstantInput } from './input.js'
import type { ProviderTokenSet } from './token-set.js'

/**
 * Who the provider says signed in. Only the exact `(provider, issuer, subject)` triple identifies a
 * person; `email`, `emailVerified` and `displayName` are informational and never link or match.
 */
export interface ProviderIdentity {
  readonly provider: string
  readonly issuer: string
  readonly subject: string
  readonly email?: string
  readonly emailVerified?: boolean
  readonly displayName?: string
}

/** Secret-free record of what the provider actually granted. */
export interface ProviderGrant {
  readonly scopes: readonly string[]
  readonly expiresAt: Date | null
}

export interface ProviderGrantInput {
  readonly scopes: readonly string[]
  readonly expiresAt?: InstantInput | null
}

/** The identity link between one local account and one provider identity. */
export interface LinkedProviderAccount {
  readonly providerAccountId: string
  readonly accountId: string
  readonly provider: string
  readonly issuer: string
  readonly subject: string
  /**
   * The provider's email at the last sign-in, link or scope upgrade (normalized), and whether it said
   * the address was verified; null when it sent none. Informational only: an address never links
   * accounts, and a provider's verified email is never an account's verified address.
   */
  readonly email: string | null
  readonly emailVerified: boolean | null
  readonly grant: ProviderGrant
  readonly linkedAt: Date
  readonly updatedAt: Date
}

/** The account as the OAuth store sees it: an id and its authoritative sign-in-method count. */
export interface AccountRecord {
  readonly accountId: string
  /** The password and every provider identity together. */
  readonly loginMethods: number
}

/**
 * Secret-free compare-and-swap handle of retained tokens. `version` only ever grows for a store: a
 * discard followed by a new store yields a higher version, so a stale handle never matches again.
 */
export interface ProviderTokenReference {
  readonly providerAccountId: string
  readonly version: number
  readonly scopes: readonly string[]
  readonly expiresAt: Date
}

/** Decrypted retained tokens, for refresh and revocation only. */
export interface StoredProviderTokens {
  readonly reference: ProviderTokenReference
  readonly tokens: ProviderTokenSet
}

export interface OAuthLoginOutcome {
  readonly provisioned: boolean
  readonly link: LinkedProviderAccount
  /** The retained tokens' handle, or null when the login kept no tokens. */
  readonly tokens: ProviderTokenReference | null
}

export interface LinkOutcome {
  /** `linked`: a new link; `relinked`: the owner linked the same identity again and the grant was refreshed. */
  readonly status: 'linked' | 'relinked'
  readonly link: LinkedProviderAccount
  readonly tokens: ProviderTokenReference | null
}

export interface ScopeUpgradeOutcome {
  readonly link: LinkedProviderAccount
  readonly tokens: ProviderTokenReference | null
}

/**
 * `unlinked` with the account's new security epoch (every session and token family made before it is
 * over). `final-method`: the link is the account's last way to sign in and stays. `not-found`: no link
 * with that id, owner and provider (also the loser of two concurrent unlinks).
 */
export type UnlinkOutcome =
  | { readonly status: 'unlinked'; readonly providerAccountId: string; readonly securityEpoch: number }
  | { readonly status: 'not-found' }
  | { readonly status: 'final-method' }

export type RevocationTokenType = 'refresh_token' | 'access_token'

/** A revocation that failed upstream and waits to be retried; holds its tokens encrypted. */
export interface ClaimedRevocationRetry {
  readonly retryId: string
  readonly providerAccountId: string
  /** The token types still to revoke, refresh token first. */
  readonly failedTokenTypes: readonly RevocationTokenType[]
  readonly occurredAt: Date
  /** How many times the retry has been claimed, this claim included. */
  readonly attempts: number
  /** Opaque proof of this claim; `completeRevocationRetry` needs it. */
  readonly claim: string
  readonly claimedUntil: Date
  readonly tokens: ProviderTokenSet
}
