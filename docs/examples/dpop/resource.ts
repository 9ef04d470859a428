// DPoP (RFC 9449) at the resource: the MCP endpoint accepting only DPoP-bound access tokens of the
// application's own authorization server, with a proof of the client's key on every request.
import {
  CachedJWKSProvider,
  DPoPNonces,
  type OAuthGrants,
  oauthAccessTokens,
  type RateLimitStore,
  type RevocationNotices,
  required,
} from '@portcullis/core'
import { createMCPEndpoint, createSecurity, mcpResource } from '@portcullis/express'
import express from 'express'

export interface DPoPResourceDependencies {
  /** The authorization server's issuer and key set URL. */
  readonly issuer: string
  readonly jwksUri: string
  readonly grants: Pick<OAuthGrants, 'status'>
  readonly notices: RevocationNotices
  /** Shared by every instance: `PostgresRateLimitStore` (or `MemoryRateLimitStore` for one process). */
  readonly replay: RateLimitStore
  /** 32 random bytes, the same on every instance (from your secret store). */
  readonly nonceSecret: Uint8Array
}

export function dpopResourceApp(deps: DPoPResourceDependencies): {
  readonly app: express.Express
  readonly ready: Promise<void>
  readonly close: () => Promise<void>
} {
  const { issuer, jwksUri, grants, notices, replay, nonceSecret } = deps
  const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
  // #region dpop-resource
  const accessTokens = oauthAccessTokens({
    issuer,
    resource: 'https://app.example.com/mcp',
    jwksUri,
    jwks,
    grants,
    notices,
    dpop: {
      // The public origin clients call, as they see it behind your proxies: a proof's htu names it.
      // Host and X-Forwarded-* headers are never trusted for this.
      origins: ['https://app.example.com'],
      // Each proof's jti is accepted once across every instance within its window (60 s by default).
      replay,
      // Bearer-only tokens are refused; a bound token is always refused as Bearer.
      required: true,
      // Optional server nonces (RFC 9449 section 8): stateless, rotating, the same on every instance.
      nonces: new DPoPNonces({ secret: nonceSecret }),
    },
  })
  // #endregion dpop-resource

  const security = createSecurity({
    mechanisms: [accessTokens],
    authorizationResolver: () => ({ scopes: ['mcp:read'] }),
  })
  const app = express()
  app.use(security.middleware)
  // #region dpop-metadata
  const mcp = createMCPEndpoint({
    security,
    auth: required('oauth'),
    protectedResource: {
      resource: 'https://app.example.com/mcp',
      authorizationServers: [issuer],
      // Clients learn that they must bind their tokens, and which proof algorithms are accepted.
      dpopBoundAccessTokensRequired: true,
      dpopSigningAlgValuesSupported: ['ES256', 'EdDSA', 'RS256', 'PS256'],
    },
  })
  // #endregion dpop-metadata
  app.use(mcp)
  const router = security.router()
  router.get(
    '/notes',
    { auth: required('oauth') },
    mcpResource('notes')((request, response) => {
      response.json({ owner: request.security?.principal?.id })
    }),
  )
  app.use(router)
  return { app, ready: mcp.attach(app).then(() => undefined), close: () => jwks.close() }
}
