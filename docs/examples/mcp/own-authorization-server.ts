// The MCP endpoint accepting the access tokens of the application's own authorization server.
import {
  CachedJWKSProvider,
  type OAuthGrants,
  oauthAccessTokens,
  type RevocationNotices,
  required,
  requiresScope,
} from '@portcullis/core'
import { createMCPEndpoint, createSecurity } from '@portcullis/express'
import express from 'express'

declare const grants: OAuthGrants // the authorization server's store
declare const notices: RevocationNotices // e.g. PostgresRevocationNotices, shared by every instance
declare const loadGrants: (accountId: string) => Promise<{ scopes: string[] }>

// #region own-authorization-server
const jwks = new CachedJWKSProvider()
const security = createSecurity({
  mechanisms: [
    oauthAccessTokens({
      issuer: 'https://app.example.com', // the authorization server's issuer, exactly
      resource: 'https://app.example.com/mcp', // a token's aud must be this one value
      jwksUri: 'https://app.example.com/oauth/jwks',
      jwks,
      grants, // every request checks the token's grant is still active
      notices, // a revoked grant or a signed-out account is refused on every instance at once
    }),
  ],
  // What the account may do; the token's scope narrows it to what the client was granted.
  authorizationResolver: ({ principal }) => loadGrants(principal.id),
})

const app = express()
app.use(security.middleware)
const mcp = createMCPEndpoint({
  security,
  auth: required('oauth'),
  guards: [requiresScope('mcp:read')],
  protectedResource: {
    resource: 'https://app.example.com/mcp',
    authorizationServers: ['https://app.example.com'],
    scopesSupported: ['mcp:read'],
  },
})
app.use(mcp)
// #endregion own-authorization-server

export const ownAuthorizationServerApp: express.Express = app
