import type { ProviderIdentity } from '../oauth/accounts/records.js'
import type { TokenEndpointClient } from '../oauth/accounts/token-endpoint.js'
import type { ProviderTokenSet } from '../oauth/accounts/token-set.js'
import type { OAuthTransaction } from '../oauth/transactions/transaction.js'

/**
 * A provider identity as verified at the callback. Only `(provider, issuer, subject)` identifies anyone;
 * the rest is informational. `authTime`, `acr` and `amr` come from a signed ID token only (never from
 * GitHub), which is what makes reauthentication possible.
 */
export interface VerifiedProviderIdentity extends ProviderIdentity {
  readonly authTime?: Date
  readonly acr?: string
  readonly amr: readonly string[]
  /** The ID token's `sid` (the provider's session), which a back-channel logout names. */
  readonly sessionId?: string
}

/** What a provider hands the lifecycle after a verified callback. */
export interface ProviderCallbackResult {
  readonly identity: VerifiedProviderIdentity
  readonly tokens: ProviderTokenSet
  /** What the provider actually granted (the token response's `scope`, or the request when omitted). */
  readonly grantedScopes: readonly string[]
}

export interface ProviderAuthorizationRequest {
  readonly redirectUri: string
  readonly state: string
  readonly nonce: string | null
  readonly codeChallenge: string
  readonly scopes: readonly string[]
  /** OIDC `max_age` in seconds (reauthentication). */
  readonly maxAge?: number
  readonly prompt?: 'login'
  readonly acrValues?: readonly string[]
}

export interface ProviderCallbackRequest {
  /** The callback's query parameters, as received. */
  readonly parameters: URLSearchParams
  /** The consumed transaction (PKCE verifier, nonce, redirect URI, start time). */
  readonly transaction: OAuthTransaction
  /** The state the transaction was found by. */
  readonly state: string
  readonly now: Date
}

/** What every provider (OIDC or GitHub) offers the lifecycle service. */
export interface OAuthIdentityProvider {
  /** `oidc` providers can reauthenticate; `oauth` providers (GitHub) cannot. */
  readonly kind: 'oidc' | 'oauth'
  /** The registration name, used in routes and as the identity's `provider`. */
  readonly name: string
  /** The issuer identities are recorded under. */
  readonly issuer: string
  readonly clientId: string
  readonly defaultScopes: readonly string[]
  /** Whether an OIDC nonce is sent and required in the ID token. */
  readonly usesNonce: boolean
  /** Whether RFC 7009 revocation (or the provider's equivalent) is available. */
  readonly supportsRevocation: boolean
  authorizationUrl(request: ProviderAuthorizationRequest): Promise<string>
  completeAuthorization(request: ProviderCallbackRequest): Promise<ProviderCallbackResult>
  /** RP-initiated logout URL, or null when the provider has no end-session endpoint. */
  endSessionUrl(request: {
    readonly postLogoutRedirectUri: string
    readonly idTokenHint?: string
    readonly state?: string
  }): string | null
  readonly tokenEndpoint: TokenEndpointClient
  /** Closes this provider's own HTTP client only. Idempotent. */
  close(): Promise<void>
}
