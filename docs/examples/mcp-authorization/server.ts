// The authorization server for MCP clients, mounted on an Express application (docs/mcp-authorization.md).
import {
  type AuthorizationServer,
  createAuthorizationServer,
  fastifyMount,
  generateSigningKey,
  type InteractionHandler,
  type SigningJwk,
} from '@portcullis/authorization-server'
import type { AccountRecords } from '@portcullis/core/accounts'
import type { OAuthGrants, OAuthServerStore } from '@portcullis/core/authorization-server'
import type { Express } from 'express'
import type { FastifyInstance } from 'fastify'

export interface Dependencies {
  readonly store: OAuthServerStore & OAuthGrants
  readonly accounts: Pick<AccountRecords, 'getAccount'>
  readonly interactions: InteractionHandler
  /** The key ring as kept in the secret store: private JWKs, the signing key first. */
  readonly signingKeys: readonly SigningJwk[]
  /** At least 32 characters each, the same on every instance. */
  readonly cookieKeys: readonly string[]
}

// #region new-key
/** Run once per rotation; keep the result in the secret store, never in code. */
export async function newRingKey(): Promise<SigningJwk> {
  return generateSigningKey('ES256')
}
// #endregion new-key

export async function authorizationServer(deps: Dependencies): Promise<AuthorizationServer> {
  // #region create
  const server = await createAuthorizationServer({
    issuer: 'https://app.example/oauth',
    store: deps.store,
    accounts: deps.accounts,
    interactions: deps.interactions,
    resources: [
      {
        indicator: 'https://app.example/mcp',
        scopes: { 'notes:read': 'Read your notes', 'notes:write': 'Change your notes' },
        accessTokenTtlSeconds: 300,
      },
    ],
    signingKeys: deps.signingKeys,
    cookieKeys: deps.cookieKeys,
  })
  // #endregion create
  return server
}

/** The same server, with registration on and Cursor's `cursor://` callback allowed to native clients. */
export async function authorizationServerForCursor(deps: Dependencies): Promise<AuthorizationServer> {
  return createAuthorizationServer({
    issuer: 'https://app.example/oauth',
    store: deps.store,
    accounts: deps.accounts,
    interactions: deps.interactions,
    resources: [{ indicator: 'https://app.example/mcp', scopes: { 'notes:read': 'Read your notes' } }],
    signingKeys: deps.signingKeys,
    cookieKeys: deps.cookieKeys,
    registration: {},
    // #region private-use-schemes
    // Native clients may also use these private-use schemes (RFC 8252 §7.1), Cursor's callback
    // cursor://anysphere.cursor-mcp/oauth/callback among them; web clients never.
    clients: { privateUseRedirectSchemes: ['cursor'] },
    // #endregion private-use-schemes
  })
}

export function mountOnExpress(app: Express, server: AuthorizationServer): void {
  // #region express
  // RFC 8414 metadata where MCP clients look: /.well-known/oauth-authorization-server/oauth
  app.get(server.metadataPath, server.metadataHandler)
  // Everything under the issuer's path, before any body parser: oidc-provider reads the bodies itself.
  app.use('/oauth', server.handler)
  // #endregion express
}

export async function mountOnFastify(app: FastifyInstance, server: AuthorizationServer): Promise<void> {
  // #region fastify
  await app.register(fastifyMount(server), { prefix: '/oauth' })
  app.get(server.metadataPath, (request, reply) => {
    reply.hijack()
    server.metadataHandler(request.raw, reply.raw)
  })
  // #endregion fastify
}

export async function connectedAppsPage(server: AuthorizationServer, accountId: string) {
  // #region connected-apps
  const apps = await server.connectedApps(accountId)
  const rows = apps.map((app) => ({
    grantId: app.grantId,
    name: app.clientName ?? app.clientId,
    host: app.clientHost,
    scopes: app.scopes.join(' '),
    lastUsed: app.lastUsedAt?.toISOString(),
  }))
  // The "Disconnect" button: every token of that grant stops working on every instance.
  const first = rows[0]
  if (first !== undefined) await server.disconnect(accountId, first.grantId)
  // #endregion connected-apps
  return rows
}
