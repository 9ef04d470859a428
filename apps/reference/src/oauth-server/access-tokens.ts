import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import { oauthAccessTokens } from '@portcullis/core/authorization-server'
import type { JWKSProvider } from '@portcullis/core/jwks'
import type { RevocationNotices } from '@portcullis/core/revocation'
import type { PostgresOAuthServerStore } from '@portcullis/postgres'
import { OAUTH_MECHANISM, OAUTH_PATH, oauthIdentifiers } from './names.js'

/**
 * The resource side: `Authorization: Bearer` access tokens of the app's authorization server, for the MCP
 * endpoint (issuer, exactly this resource, EdDSA only, `at+jwt`), with the grant checked on every request
 * through the store and the revocation notices (a disconnected client is refused on every instance).
 */
export function oauthAccessTokenMechanism(parts: {
  readonly grants: PostgresOAuthServerStore
  readonly publicOrigin: string
  /** Where this process listens: the keys are fetched from there, as another service would. */
  readonly selfUrl: string
  readonly jwks: JWKSProvider
  readonly notices: RevocationNotices
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
  })
  // #endregion access-tokens
}
