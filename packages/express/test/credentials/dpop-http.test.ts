// DPoP-bound access tokens (RFC 9449) at an Express route and at the MCP endpoint: real Express through
// createSecurity, the issuer's JWKS on loopback, proofs signed with client keys made at run time.
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryOAuthServerStore, oauthAccessTokens } from '@portcullis/core/authorization-server'
import { DPoPNonces } from '@portcullis/core/dpop'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { MemoryRateLimitStore } from '@portcullis/core/local-accounts'
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
// The public origin behind the proxy; the tests reach the app on a loopback port.
const PUBLIC = 'https://app.example'
const RESOURCE = `${PUBLIC}/mcp`
const CLIENT_ID = 'mcp-client-1'
const key = es256Key('as-1')
const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url')

const notices = new MemoryRevocationNotices()
const accounts = new MemoryAccountStore({ notices })
const grants = new MemoryOAuthServerStore({ accounts, notices })
let jwksEndpoint: JwksEndpoint
let jwks: CachedJWKSProvider
let app: Express
let nonceApp: Express
let mcpApp: Express
const nonces = new DPoPNonces({ secret: randomBytes(32) })

/** A client key pair and its RFC 7638 thumbprint. */
function clientKey() {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const { crv, kty, x, y } = pair.publicKey.export({ format: 'jwk' })
  const jwk = { crv, kty, x, y }
  const thumbprint = createHash('sha256').update(JSON.stringify(jwk)).digest('base64url')
  return { privateKey: pair.privateKey, jwk, thumbprint }
}
type ClientKey = ReturnType<typeof clientKey>
const client = clientKey()

function proof(holder: ClientKey, method: string, url: string, token: string, claims = {}) {
  const header = { typ: 'dpop+jwt', alg: 'ES256', jwk: holder.jwk }
  const payload = {
    jti: randomUUID(),
    htm: method,
    htu: url,
    iat: Math.floor(Date.now() / 1000),
    ath: createHash('sha256').update(token).digest('base64url'),
    ...claims,
  }
  const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(payload))}`
  return `${input}.${b64u(sign('sha256', Buffer.from(input), { key: holder.privateKey, dsaEncoding: 'ieee-p1363' }))}`
}

async function boundToken(jkt: string | undefined = client.thumbprint) {
  const { accountId, grantId } = await seedGrant(
    { accounts, grants },
    { clientId: CLIENT_ID, resource: RESOURCE },
  )
  const token = signAccessToken(
    key,
    { issuer: AS_ISSUER, resource: RESOURCE, clientId: CLIENT_ID, accountId, grantId },
    jkt === undefined ? {} : { cnf: { jkt } },
  )
  return { accountId, token }
}

function build(dpop: { required?: boolean; nonces?: DPoPNonces }): Express {
  const security = createSecurity({
    mechanisms: [
      oauthAccessTokens({
        issuer: AS_ISSUER,
        resource: RESOURCE,
        jwksUri: jwksEndpoint.url,
        jwks,
        grants,
        notices,
        dpop: { origins: [PUBLIC], replay: new MemoryRateLimitStore(), ...dpop },
      }),
    ],
    authorizationResolver: () => ({ scopes: ['mcp:read'] }),
  })
  const server = express()
  server.use(security.middleware)
  const router = security.router()
  router.get('/me', { auth: required('oauth') }, (req, res) => {
    res.json({ id: req.security?.principal?.id, jkt: req.security?.evidence[0]?.attributes?.dpopJkt })
  })
  server.use(router)
  return server
}

beforeAll(async () => {
  jwksEndpoint = await startJwksEndpoint([key.jwk])
  jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
  app = build({ required: true })
  nonceApp = build({ nonces })
  const security = createSecurity({
    mechanisms: [
      oauthAccessTokens({
        name: 'oauth',
        issuer: AS_ISSUER,
        resource: RESOURCE,
        jwksUri: jwksEndpoint.url,
        jwks,
        grants,
        notices,
        dpop: { origins: [PUBLIC], replay: new MemoryRateLimitStore(), required: true },
      }),
    ],
    authorizationResolver: () => ({ scopes: ['mcp:read'] }),
  })
  mcpApp = express()
  mcpApp.use(security.middleware)
  const mcp = createMCPEndpoint({
    security,
    auth: required('oauth'),
    protectedResource: {
      resource: RESOURCE,
      authorizationServers: [AS_ISSUER],
      dpopBoundAccessTokensRequired: true,
      dpopSigningAlgValuesSupported: ['ES256', 'EdDSA'],
    },
  })
  mcpApp.use(mcp)
  const router = security.router()
  router.get(
    '/notes',
    { auth: required('oauth') },
    mcpResource('notes')((req, res) => res.json({ owner: req.security?.principal?.id })),
  )
  mcpApp.use(router)
  await mcp.attach(mcpApp)
})

afterAll(async () => {
  await jwks.close()
  await jwksEndpoint.close()
})

describe('a DPoP-bound token at an Express route', () => {
  it('is served with a proof for the public URL (behind a proxy), whatever Host and X-Forwarded-* say', async () => {
    const { accountId, token } = await boundToken()
    const served = await request(app)
      .get('/me?page=2')
      .set('Authorization', `DPoP ${token}`)
      .set('DPoP', proof(client, 'GET', `${PUBLIC}/me`, token))
      .set('X-Forwarded-Proto', 'http')
      .set('X-Forwarded-Host', 'evil.example')
    expect(served.status).toBe(200)
    expect(served.body).toEqual({ id: accountId, jkt: client.thumbprint })
    // A proof for the internal URL the app really listens on is refused.
    const internal = await request(app)
      .get('/me')
      .set('Authorization', `DPoP ${token}`)
      .set('DPoP', proof(client, 'GET', 'http://127.0.0.1/me', token))
    expect(internal.status).toBe(401)
    expect(internal.body.code).toBe('dpop.invalid_proof')
  })

  it('refuses the token copied without the key: as Bearer, with a proof by another key, or a replayed proof', async () => {
    const { token } = await boundToken()
    const asBearer = await request(app).get('/me').set('Authorization', `Bearer ${token}`)
    expect(asBearer.status).toBe(401)
    expect(asBearer.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(asBearer.body.code).toBe('dpop.invalid_token')
    expect(asBearer.headers['www-authenticate']).toBe(
      'DPoP error="invalid_token", algs="ES256 EdDSA RS256 PS256"',
    )
    const thief = await request(app)
      .get('/me')
      .set('Authorization', `DPoP ${token}`)
      .set('DPoP', proof(clientKey(), 'GET', `${PUBLIC}/me`, token))
    expect(thief.status).toBe(401)
    expect(thief.body.code).toBe('dpop.invalid_token')
    const once = proof(client, 'GET', `${PUBLIC}/me`, token)
    const first = await request(app).get('/me').set('Authorization', `DPoP ${token}`).set('DPoP', once)
    expect(first.status).toBe(200)
    const replayed = await request(app).get('/me').set('Authorization', `DPoP ${token}`).set('DPoP', once)
    expect(replayed.status).toBe(401)
    expect(replayed.body.code).toBe('dpop.invalid_proof')
    expect(replayed.headers['www-authenticate']).toMatch(/^DPoP error="invalid_dpop_proof", algs="ES256/)
    expect(JSON.stringify(replayed.body)).not.toMatch(/jti|replay|dpop\.replayed/)
  })

  it('refuses a bearer-only token on a route that requires bound tokens', async () => {
    const { token } = await boundToken(undefined)
    const refused = await request(app).get('/me').set('Authorization', `Bearer ${token}`)
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe('dpop.invalid_token')
  })

  it('asks for a server nonce with use_dpop_nonce and DPoP-Nonce, then serves the retry', async () => {
    const { token } = await boundToken()
    const first = await request(nonceApp)
      .get('/me')
      .set('Authorization', `DPoP ${token}`)
      .set('DPoP', proof(client, 'GET', `${PUBLIC}/me`, token))
    expect(first.status).toBe(401)
    expect(first.body.code).toBe('dpop.nonce_required')
    expect(first.headers['www-authenticate']).toMatch(/^DPoP error="use_dpop_nonce"/)
    const nonce = first.headers['dpop-nonce'] as string
    expect(nonce).toBe(nonces.current(Date.now()))
    const retry = await request(nonceApp)
      .get('/me')
      .set('Authorization', `DPoP ${token}`)
      .set('DPoP', proof(client, 'GET', `${PUBLIC}/me`, token, { nonce }))
    expect(retry.status).toBe(200)
  })
})

describe('the MCP endpoint with DPoP required', () => {
  it('says so in its protected-resource metadata', async () => {
    const metadata = await request(mcpApp).get('/.well-known/oauth-protected-resource/mcp')
    expect(metadata.status).toBe(200)
    expect(metadata.body).toMatchObject({
      resource: RESOURCE,
      dpop_bound_access_tokens_required: true,
      dpop_signing_alg_values_supported: ['ES256', 'EdDSA'],
    })
  })

  it('serves a bound token with its proof (list and read), and refuses the copied token with a DPoP challenge', async () => {
    const { accountId, token } = await boundToken()
    const served = await rpc(mcpApp, call('resources/list'), {
      Authorization: `DPoP ${token}`,
      DPoP: proof(client, 'POST', RESOURCE, token),
    })
    expect(served.status).toBe(200)
    const uri = (served.body.result.resources as { name: string; uri: string }[]).find(
      (resource) => resource.name === 'notes',
    )?.uri
    expect(uri).toBeTypeOf('string')
    // The read runs the route in process on the caller's verified request: one proof, for POST /mcp.
    const read = await rpc(mcpApp, call('resources/read', { uri }), {
      Authorization: `DPoP ${token}`,
      DPoP: proof(client, 'POST', RESOURCE, token),
    })
    expect(read.status).toBe(200)
    expect(JSON.parse(read.body.result.contents[0].text)).toEqual({ owner: accountId })
    const copied = await rpc(mcpApp, call('resources/list'), { Authorization: `Bearer ${token}` })
    expect(copied.status).toBe(401)
    expect(copied.body.code).toBe('dpop.invalid_token')
    expect(copied.headers['www-authenticate']).toBe(
      'DPoP error="invalid_token", algs="ES256 EdDSA RS256 PS256", Bearer resource_metadata="https://app.example/.well-known/oauth-protected-resource/mcp"',
    )
  })
})
