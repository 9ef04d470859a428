import type { RevocationTokenType } from './records.js'

/** A successful refresh response, as parsed by the token endpoint client. */
export interface TokenEndpointTokens {
  readonly accessToken: string
  readonly tokenType?: string
  /** `expires_in` in seconds (1 .. 315360000). */
  readonly expiresIn: number
  /** The granted scopes; omitted means "unchanged". */
  readonly scopes?: readonly string[]
  /** A rotated refresh token; omitted means the old one stays valid. */
  readonly refreshToken?: string
  readonly idToken?: string
}

export type TokenRefreshResult =
  | { readonly kind: 'refreshed'; readonly tokens: TokenEndpointTokens }
  /** The provider answered `error=invalid_grant`: the refresh token is dead. */
  | { readonly kind: 'invalid-grant' }

/**
 * Port: the provider's token and revocation endpoints (RFC 6749 section 6, RFC 7009). Implementations
 * do the HTTP; any throw means "the provider is unavailable" (refresh) or "revocation failed" (revoke).
 */
export interface TokenEndpointClient {
  refresh(request: {
    readonly refreshToken: string
    readonly scopes: readonly string[]
  }): Promise<TokenRefreshResult>
  revoke(request: { readonly token: string; readonly tokenTypeHint: RevocationTokenType }): Promise<void>
}
