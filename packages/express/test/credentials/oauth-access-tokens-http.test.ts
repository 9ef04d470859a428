// The authorization server's access tokens at a resource, end to end: real Express through createSecurity,
// the issuer's JWKS on loopback, grants in the memory stores, and the MCP endpoint's RFC 9728 challenge.
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { requiresScope } from '@portcullis/core/authorization'
import { MemoryOAuthServerStore, oauthAccessTokens } from '@portcullis/core/authorization-server'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { required } from '@portcullis/core/policy'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import express, { type Express } from 'express'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedGrant } from '../../../core/test/support/seed-grant.js'
import { createSecurity } from '../../src/index.js'
import { createMCPEndpoint, mcpResource } from '../../src/mcp/index.js'
import { call, rpc } from '../mcp/fixture.js'
import { es256Key, type JwksEndpoint, signAccessToken, startJwksEndpoint } from './jwt-support.js'

const AS_ISSUER = 'https://auth.app.example'
const RESOURCE = 'https://app.example/mcp'
const CLIENT_ID = 'mcp-client-1'
const METADATA = 'https://app.example/.well-known/oauth-protected-resource/mcp'
const key = es256Key('as-1')

const notices = new MemoryRevocationNotices()
const accounts = new MemoryAccountStore({ notices })
const grants = new MemoryOAuthServerStore({ accounts, notices })
let jwksEndpoint: JwksEndpoint
let jwks: CachedJWKSProvider
let app: Express

async function grant() {
  const { accountId, grantId } = await seedGrant(
    { accounts, grants },
    { clientId: CLIENT_ID, resource: RESOURCE },
  )
  return { accountId, grantId }
}

const token = (accountId: string, grantId: string, claims: Record<string, unknown> = {}) =>
  signAccessToken(
    key,
    { issuer: AS_ISSUER, resource: RESOURCE, clientId: CLIENT_ID, accountId, grantId },
    claims,
  )

beforeAll(async () => {
  jwksEndpoint = await startJwksEndpoint([key.jwk])
  jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
  const security = createSecurity({
    mechanisms: [
      oauthAccessTokens({
        issuer: AS_ISSUER,
        resource: RESOURCE,
        jwksUri: jwksEndpoint.url,
        jwks,
        grants,
        notices,
      }),
    ],
    // The account may do everything; the token's scope narrows it to what the client was granted.
    authorizationResolver: () => ({ scopes: ['mcp:read', 'admin'] }),
  })
  app = express()
  app.use(security.middleware)
  const mcp = createMCPEndpoint({
    security,
    auth: required('oauth'),
    protectedResource: {
      resource: RESOURCE,
      authorizationServers: [AS_ISSUER],
      scopesSupported: ['mcp:read'],
    },
  })
  app.use(mcp)
  const router = security.router()
  router.get('/me', { auth: required('oauth'), guards: [requiresScope('mcp:read')] }, (req, res) => {
    res.json({ id: req.security?.principal?.id, credential: req.security?.evidence[0]?.credentialType })
  })
  router.get('/admin', { auth: required('oauth'), guards: [requiresScope('admin')] }, (_req, res) => {
    res.json({ admin: true })
  })
  app.use(router)
  app.get(
    '/notes',
    mcpResource('notes')((_req, res) => res.json({ notes: [] })),
  )
  await mcp.attach(app)
})

afterAll(async () => {
  await jwks.close()
  await jwksEndpoint.close()
})

describe('a route with auth: required(oauth)', () => {
  it('serves a valid token as its account, narrowed to the token scopes', async () => {
    const { accountId, grantId } = await grant()
    const bearer = `Bearer ${token(accountId, grantId)}`
    const me = await request(app).get('/me').set('Authorization', bearer)
    expect(me.status).toBe(200)
    expect(me.body).toEqual({ id: accountId, credential: 'oauth-access-token' })
    const admin = await request(app).get('/admin').set('Authorization', bearer)
    expect(admin.status).toBe(403)
  })

  it("refuses another resource's token with 401 and a Bearer challenge, and a revoked grant's token", async () => {
    const { accountId, grantId } = await grant()
    const foreign = token(accountId, grantId, { aud: 'https://other.example/mcp' })
    const refused = await request(app).get('/me').set('Authorization', `Bearer ${foreign}`)
    expect(refused.status).toBe(401)
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer/)
    expect(JSON.stringify(refused.body)).not.toMatch(/audience|jwt\.|grant/)

    const valid = `Bearer ${token(accountId, grantId)}`
    expect((await request(app).get('/me').set('Authorization', valid)).status).toBe(200)
    await grants.disconnect(accountId, grantId)
    expect((await request(app).get('/me').set('Authorization', valid)).status).toBe(401)
  })
})

describe('the MCP endpoint behind oauthAccessTokens', () => {
  it('answers no token, or a token for another resource, with 401 and resource_metadata (MCP authorization)', async () => {
    const { accountId, grantId } = await grant()
    const foreign = token(accountId, grantId, { aud: 'https://other.example/mcp' })
    for (const authorization of [undefined, `Bearer ${foreign}`]) {
      const response = await rpc(app, call('resources/list'), { Authorization: authorization })
      expect(response.status).toBe(401)
      expect(response.headers['www-authenticate']).toBe(`Bearer resource_metadata="${METADATA}"`)
    }
    const served = await rpc(app, call('resources/list'), {
      Authorization: `Bearer ${token(accountId, grantId)}`,
    })
    expect(served.status).toBe(200)
    expect(served.body.result.resources).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'notes' })]),
    )
  })

  it('publishes the authorization server and scopes in its protected-resource metadata (RFC 9728)', async () => {
    const metadata = await request(app).get('/.well-known/oauth-protected-resource/mcp')
    expect(metadata.status).toBe(200)
    expect(metadata.body).toEqual({
      resource: RESOURCE,
      authorization_servers: [AS_ISSUER],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:read'],
    })
  })
})
