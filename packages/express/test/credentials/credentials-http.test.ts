// Machine and proxy credentials end to end: real Express through createSecurity, real JWKS endpoints on
// loopback, the real API key service over the memory store.
import { randomBytes } from 'node:crypto'
import {
  ApiKeyPepperRing,
  type ApiKeyRecord,
  ApiKeyService,
  type ApiKeyStore,
  apiKey,
  MemoryApiKeyStore,
} from '@portcullis/core/api-keys'
import { requiresScope } from '@portcullis/core/authorization'
import { googleIap } from '@portcullis/core/iap'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { anyOf, required } from '@portcullis/core/policy'
import { workloadJwt } from '@portcullis/core/workload-jwt'
import express from 'express'
import request from 'supertest'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createSecurity } from '../../src/index.js'
import { es256Key, type JwksEndpoint, signEs256, signHs256, startJwksEndpoint } from './jwt-support.js'

const ISSUER = 'https://issuer.example'
const AUDIENCE = 'https://reports.example'
const IAP_AUDIENCE = '/projects/42/global/backendServices/7'
const workloadKey = es256Key('wl-1')
const iapKey = es256Key('iap-1')

// Synchronous like the memory store it extends, so the whole API-key path runs without a promise.
class CountingStore extends MemoryApiKeyStore {
  lookups = 0
  down = false
  override get(keyId: string): ApiKeyRecord | undefined {
    this.lookups++
    if (this.down) throw new Error('ECONNREFUSED')
    return super.get(keyId)
  }
}

let store: CountingStore
let keys: ApiKeyService
let workloadJwks: JwksEndpoint
let iapJwks: JwksEndpoint
let downJwks: JwksEndpoint
let jwks: CachedJWKSProvider
let app: express.Express
let readKey: string

const nowSeconds = () => Math.floor(Date.now() / 1000)
const workloadToken = (claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) =>
  signEs256(
    { typ: 'at+jwt', ...header },
    {
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'svc-billing',
      client_id: 'billing',
      jti: randomBytes(8).toString('hex'),
      iat: nowSeconds(),
      exp: nowSeconds() + 300,
      scope: 'invoices:read',
      ...claims,
    },
    workloadKey,
  )
const iapAssertion = (claims: Record<string, unknown> = {}) =>
  signEs256(
    { typ: 'JWT' },
    {
      iss: 'https://cloud.google.com/iap',
      aud: IAP_AUDIENCE,
      sub: 'accounts.google.com:99',
      email: 'ada@example.com',
      iat: nowSeconds(),
      exp: nowSeconds() + 600,
      ...claims,
    },
    iapKey,
  )

beforeAll(async () => {
  workloadJwks = await startJwksEndpoint([workloadKey.jwk])
  iapJwks = await startJwksEndpoint([iapKey.jwk])
  downJwks = await startJwksEndpoint([workloadKey.jwk])
  downJwks.status = 503
  store = new CountingStore()
  keys = new ApiKeyService({
    store: store as ApiKeyStore,
    peppers: new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }),
    prefix: 'acme',
  })
  readKey = (await keys.issue({ ownerId: 'svc-reports', restrictions: { scopes: ['reports:read'] } })).value
  jwks = new CachedJWKSProvider({ allowInsecureLoopback: true, failureBackoffSeconds: 0 })
  const security = createSecurity({
    mechanisms: [
      apiKey({ service: keys }),
      // Two issuers read the same Authorization header, so each leaves the other's tokens alone.
      workloadJwt({
        issuer: ISSUER,
        audience: AUDIENCE,
        jwksUri: workloadJwks.url,
        jwks,
        shareBearerHeader: true,
      }),
      workloadJwt({
        name: 'partner-jwt',
        issuer: 'https://partner.example',
        audience: AUDIENCE,
        jwksUri: downJwks.url,
        jwks,
        shareBearerHeader: true,
      }),
      googleIap({ audience: IAP_AUDIENCE, jwks, jwksUri: iapJwks.url }),
    ],
    // The application grants everything; credentials narrow it.
    authorizationResolver: () => ({
      scopes: ['reports:read', 'reports:write', 'invoices:read', 'invoices:write'],
    }),
  })
  const router = security.router()
  const who: express.RequestHandler = (req, res) => {
    res.json({
      principal: req.security?.principal ?? null,
      scopes: [...(req.security?.snapshot.scopes ?? [])],
    })
  }
  router.get('/reports', { auth: required('api-key'), guards: [requiresScope('reports:read')] }, who)
  router.post('/reports', { auth: required('api-key'), guards: [requiresScope('reports:write')] }, who)
  router.get('/invoices', { auth: required('workload-jwt'), guards: [requiresScope('invoices:read')] }, who)
  router.post('/invoices', { auth: required('workload-jwt'), guards: [requiresScope('invoices:write')] }, who)
  router.get('/partner', { auth: required('partner-jwt') }, who)
  router.get('/either', { auth: anyOf('api-key', 'workload-jwt') }, who)
  router.get('/me', { auth: required('google-iap') }, who)
  app = express()
  app.use(security.middleware)
  app.use(router)
})

afterAll(async () => {
  await jwks.close()
  await Promise.all([workloadJwks.close(), iapJwks.close(), downJwks.close()])
})

beforeEach(() => {
  store.lookups = 0
  store.down = false
})

/** Sends the header twice (Node writes one header line per array element). */
const twice = (value: string): string => [value, value] as unknown as string

const expectProblem = (response: request.Response, status: number, code: string) => {
  expect(response.status).toBe(status)
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(response.body.code).toBe(code)
  expect(JSON.stringify(response.body)).not.toMatch(/api-key|jwt\.|digest|kid/)
}

describe('API keys over HTTP', () => {
  it('authenticates the owner, narrowed to the key restrictions, in one store lookup', async () => {
    const response = await request(app).get('/reports').set('X-API-Key', readKey)
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      principal: { id: 'svc-reports', kind: 'service' },
      scopes: ['reports:read'],
    })
    expect(store.lookups).toBe(1)
    expectProblem(await request(app).post('/reports').set('X-API-Key', readKey), 403, 'authorization.denied')
  })

  it('answers 401 to malformed and duplicated keys without touching the store', async () => {
    for (const value of [
      'acme_short',
      `${readKey}x`,
      readKey.replace('acme', 'ACME'),
      `${readKey.slice(0, -1)}=`,
    ]) {
      expectProblem(
        await request(app).get('/reports').set('X-API-Key', value),
        401,
        'authentication.required',
      )
    }
    expectProblem(
      await request(app).get('/reports').set('X-API-Key', twice(readKey)),
      401,
      'authentication.required',
    )
    expect(store.lookups).toBe(0)
  })

  it('answers 401 to a revoked key and 503 when the store is down', async () => {
    const issued = await keys.issue({ ownerId: 'svc-tmp' })
    expect((await request(app).get('/either').set('X-API-Key', issued.value)).status).toBe(200)
    await keys.revoke(issued.keyId)
    expectProblem(
      await request(app).get('/either').set('X-API-Key', issued.value),
      401,
      'authentication.required',
    )
    store.down = true
    expectProblem(
      await request(app).get('/reports').set('X-API-Key', readKey),
      503,
      'authentication.unavailable',
    )
  })
})

describe('workload JWTs over HTTP', () => {
  it('authenticates a service with its token scopes as the ceiling, fetching the JWKS once', async () => {
    const before = workloadJwks.hits
    for (let i = 0; i < 3; i++) {
      const response = await request(app).get('/invoices').set('Authorization', `Bearer ${workloadToken()}`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        principal: { id: 'svc-billing', kind: 'service', displayName: 'billing' },
        scopes: ['invoices:read'],
      })
    }
    expect(workloadJwks.hits - before).toBeLessThanOrEqual(1)
    const post = await request(app).post('/invoices').set('Authorization', `Bearer ${workloadToken()}`)
    expectProblem(post, 403, 'authorization.denied')
  })

  it('answers 401 to alg none, HS256 signed with the public key and expired tokens', async () => {
    const none = `${Buffer.from('{"alg":"none","typ":"at+jwt","kid":"wl-1"}').toString('base64url')}.${workloadToken().split('.')[1]}.`
    const pem = workloadKey.publicKey.export({ format: 'pem', type: 'spki' }) as string
    const confused = signHs256({ typ: 'at+jwt', kid: 'wl-1' }, { iss: ISSUER, aud: AUDIENCE, sub: 'x' }, pem)
    const expired = workloadToken({ iat: nowSeconds() - 400, exp: nowSeconds() - 60 })
    for (const token of [none, confused, expired]) {
      const response = await request(app).get('/invoices').set('Authorization', `Bearer ${token}`)
      expectProblem(response, 401, 'authentication.required')
      expect(response.headers['www-authenticate']).toBe('Bearer')
    }
  })

  it('answers 503 with Retry-After when the issuer JWKS is down', async () => {
    const token = signEs256(
      { typ: 'at+jwt' },
      {
        iss: 'https://partner.example',
        aud: AUDIENCE,
        sub: 'p',
        client_id: 'p',
        jti: 'j',
        iat: nowSeconds(),
        exp: nowSeconds() + 60,
        scope: 'a',
      },
      workloadKey,
    )
    const response = await request(app).get('/partner').set('Authorization', `Bearer ${token}`)
    expectProblem(response, 503, 'authentication.unavailable')
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0)
    // Unavailable beats everything else presented, even a valid API key on a route that accepts it.
    const mixed = await request(app)
      .get('/either')
      .set('X-API-Key', readKey)
      .set('Authorization', `Bearer ${token}`)
    expectProblem(mixed, 503, 'authentication.unavailable')
  })

  it('never downgrades a presented bad token to absent when another credential is valid', async () => {
    const bad = workloadToken({ aud: 'https://other.example' })
    const response = await request(app)
      .get('/either')
      .set('X-API-Key', readKey)
      .set('Authorization', `Bearer ${bad}`)
    expectProblem(response, 401, 'authentication.required')
  })
})

describe('Google IAP over HTTP', () => {
  it('authenticates the signed assertion and ignores unsigned identity headers', async () => {
    const response = await request(app)
      .get('/me')
      .set('x-goog-iap-jwt-assertion', iapAssertion())
      .set('x-goog-authenticated-user-email', 'accounts.google.com:mallory@example.com')
    expect(response.status).toBe(200)
    expect(response.body.principal).toEqual({
      id: 'accounts.google.com:99',
      kind: 'user',
      displayName: 'ada@example.com',
    })
    const spoofOnly = await request(app)
      .get('/me')
      .set('x-goog-authenticated-user-email', 'accounts.google.com:ada@example.com')
    expectProblem(spoofOnly, 401, 'authentication.required')
  })

  it('answers 401 to a duplicated header, a wrong audience and a foreign issuer', async () => {
    const assertion = iapAssertion()
    expectProblem(
      await request(app).get('/me').set('x-goog-iap-jwt-assertion', twice(assertion)),
      401,
      'authentication.required',
    )
    expectProblem(
      await request(app)
        .get('/me')
        .set('x-goog-iap-jwt-assertion', iapAssertion({ aud: '/projects/42/apps/other' })),
      401,
      'authentication.required',
    )
    expectProblem(
      await request(app)
        .get('/me')
        .set('x-goog-iap-jwt-assertion', iapAssertion({ iss: 'https://accounts.google.com' })),
      401,
      'authentication.required',
    )
  })
})
