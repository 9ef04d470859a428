import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import { oauthAccessTokens } from '@portcullis/core/authorization-server'
import type { JWKSProvider } from '@portcullis/core/jwks'
import type { RateLimitStore } from '@portcullis/core/local-accounts'
import type { RevocationNotices } from '@portcullis/core/revocation'
import type { PostgresOAuthServerStore } from '@portcullis/postgres'
import { OAUTH_MECHANISM, OAUTH_PATH, oauthIdentifiers } from './names.js'

/**
 * The resource side: access tokens of the app's authorization server, for the MCP endpoint (issuer,
 * exactly this resource, EdDSA only, `at+jwt`), with the grant checked on every request through the store
 * and the revocation notices (a disconnected client is refused on every instance). A DPoP-bound token
 * (the client sent a proof to the token endpoint) needs a proof of its key on every request; its `jti`
 * is remembered in the shared rate-limit store, so a proof works once across instances.
 */
export function oauthAccessTokenMechanism(parts: {
  readonly grants: PostgresOAuthServerStore
  readonly publicOrigin: string
  /** Where this process listens: the keys are fetched from there, as another service would. */
  readonly selfUrl: string
  readonly jwks: JWKSProvider
  readonly notices: RevocationNotices
  /** The shared store each DPoP proof's `jti` is counted in (`PostgresRateLimitStore`). */
  readonly dpopReplay: RateLimitStore
}): AuthenticationMechanism {
  const { issuer, resource } = oauthIdentifiers(parts.publicOrigin)
  // #region access-tokens
  return oauthAccessTokens({
    name: OAUTH_MECHANISM,
    issuer,
    resource,
    jwks: parts.jwks,
    jwksUri: `${parts.selfUrl}${OAUTH_PATH}/jwks`,
    algorithms: ['EdDSA'],
    grants: parts.grants,
    notices: parts.notices,
    shareBearerHeader: true,
    dpop: { origins: [new URL(parts.publicOrigin).origin], replay: parts.dpopReplay },
  })
  // #endregion access-tokens
}
