import { generateKeyPairSync, sign } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { required } from '@portcullis/core/policy'
import { workloadJwt } from '@portcullis/core/workload-jwt'
import express from 'express'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSecurity } from '../../src/index.js'

/**
 * The JWKS endpoint of a workload issuer goes down, then comes back, while requests keep arriving
 * through the Express adapter (a real loopback JWKS server; a settable clock for the cache windows):
 * known keys keep verifying within the stale-if-error bound, the outage is 503 with Retry-After once the
 * bound is over (never 401: an outage logs nobody out), and verification recovers with the endpoint.
 */
const ISSUER = 'https://issuer.test'
const AUDIENCE = 'https://api.test'
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' }
let now = Date.UTC(2031, 0, 1)
const clock = () => now

let jwksServer: Server | undefined
let port = 0
let fetches = 0
async function jwksUp(): Promise<void> {
  jwksServer = createServer((_request, response) => {
    fetches += 1
    response.setHeader('content-type', 'application/json')
    response.setHeader('cache-control', 'max-age=60')
    response.end(JSON.stringify({ keys: [jwk] }))
  })
  await new Promise<void>((resolve) => jwksServer?.listen(port, '127.0.0.1', resolve))
  port = (jwksServer.address() as AddressInfo).port
}
async function jwksDown(): Promise<void> {
  const server = jwksServer
  jwksServer = undefined
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
}

let app: express.Express
let jwks: CachedJWKSProvider
beforeAll(async () => {
  await jwksUp()
  jwks = new CachedJWKSProvider({
    allowInsecureLoopback: true,
    clock,
    staleIfErrorSeconds: 120,
    failureBackoffSeconds: 0,
    minMaxAgeSeconds: 30,
  })
  const security = createSecurity({
    mechanisms: [
      workloadJwt({
        issuer: ISSUER,
        audience: AUDIENCE,
        jwksUri: `http://127.0.0.1:${port}/jwks.json`,
        jwks,
        clock,
        cache: false,
      }),
    ],
  })
  const router = security.router()
  router.get('/reports', { auth: required('workload-jwt') }, (req, res) => {
    res.json({ principal: req.security.principal.id })
  })
  app = express()
  app.use(security.middleware)
  app.use(router)
})
afterAll(async () => {
  await jwksDown()
  await jwks.close()
})

const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url')

/** An ES256 `at+jwt` signed with node:crypto (JWS signatures are raw r||s, not DER). */
async function token(): Promise<string> {
  const iat = Math.floor(now / 1000)
  const header = b64u(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' }))
  const payload = b64u(
    JSON.stringify({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'svc-reporting',
      client_id: 'svc',
      scope: 'reports:read',
      jti: `${now}`,
      iat,
      exp: iat + 300,
    }),
  )
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), {
    key: privateKey,
    dsaEncoding: 'ieee-p1363',
  })
  return `${header}.${payload}.${b64u(signature)}`
}

const call = async () =>
  request(app)
    .get('/reports')
    .set('authorization', `Bearer ${await token()}`)

describe('the JWKS endpoint down, then back, under requests', () => {
  it('stale keys within the bound, 503 after it (never 401), and recovery with the endpoint', async () => {
    const fresh = await call()
    expect([fresh.status, fresh.body]).toEqual([200, { principal: 'svc-reporting' }])
    expect(fetches).toBe(1)

    await jwksDown()
    now += 90_000 // past max-age (60 s), inside stale-if-error (120 s after expiry)
    const stale = await call()
    expect([stale.status, stale.body]).toEqual([200, { principal: 'svc-reporting' }])
    expect(jwks.stats().staleServed).toBeGreaterThan(0)

    now += 120_000 // 150 s after expiry: past the bound
    const outage = await call()
    expect(outage.status).toBe(503)
    expect(outage.headers['retry-after']).toBeDefined()
    expect(outage.body.code).not.toMatch(/required|invalid/)

    await jwksUp()
    now += 1_000
    const recovered = await call()
    expect([recovered.status, recovered.body]).toEqual([200, { principal: 'svc-reporting' }])
    expect(fetches).toBe(2)
  })
})
