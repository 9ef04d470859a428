// Spans and counters of real decisions: an Express server on loopback with API keys and password sign-in,
// the OpenTelemetry SDK registered with in-memory exporters, requests sent with fetch.
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  ApiKeyPepperRing,
  ApiKeyService,
  apiKey,
  decodeApiKeyPepper,
  MemoryApiKeyStore,
} from '@portcullis/core/api-keys'
import { requiresScope } from '@portcullis/core/authorization'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  PASSWORD_ACCEPTED,
  type PasswordHasher,
} from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import { createSecurity, localAccountRoutes } from '@portcullis/express'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTelemetryInstrumentation, TelemetryNames } from '../src/index.js'
import { type RegisteredSdk, registerSdk } from './support/telemetry.js'

const ORIGIN = 'http://127.0.0.1'
// Tests only: a hasher without cost (an application uses @portcullis/argon2).
const hasher: PasswordHasher = {
  hash: async (password) => `$plain$${password}`,
  verify: async (encoded, password) => encoded === `$plain$${password}`,
  needsRehash: () => false,
}
const PASSWORD = 'correct horse battery staple'

let sdk: RegisteredSdk
let base: string
let close: () => Promise<void>
let apiKeys: ApiKeyService

beforeAll(async () => {
  sdk = registerSdk()
  const instrumentation = openTelemetryInstrumentation()
  apiKeys = new ApiKeyService({
    store: new MemoryApiKeyStore(),
    peppers: new ApiKeyPepperRing(decodeApiKeyPepper('v1', randomBytes(32).toString('base64'), 'base64')),
    prefix: 'acme',
  })
  const local = new LocalAccounts({
    profile: 'session',
    accounts: new MemoryAccountStore(),
    sessions: new MemorySessionStore(),
    rateLimits: new MemoryRateLimitStore(),
    rateLimit: {
      perAccount: { limit: 3, windowSeconds: 600 },
      perAddress: { limit: 100, windowSeconds: 600 },
    },
    hasher,
    passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
    publicOrigin: ORIGIN,
    registration: 'open',
    instrumentation,
  })
  const security = createSecurity({
    mechanisms: [apiKey({ service: apiKeys }), ...local.mechanisms],
    authorizationResolver: () => ({ scopes: ['reports:read'] }),
    instrumentation,
  })
  const api = security.router({ prefix: '/api' })
  api.get('/reports', { auth: required('api-key'), guards: [requiresScope('reports:read')] }, (_req, res) => {
    res.json({ ok: true })
  })
  api.get(
    '/exports',
    { auth: required('api-key'), guards: [requiresScope('reports:export')] },
    (_req, res) => {
      res.json({ ok: true })
    },
  )
  api.get('/me', { auth: required('session') }, (req, res) => {
    res.json({ account: req.security.principal.id })
  })
  const app = express()
  app.use(security.middleware)
  app.use(localAccountRoutes({ local, security }))
  app.use(api)
  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  close = () => new Promise((resolve) => server.close(() => resolve()))
})

afterAll(async () => {
  await close()
  await sdk.shutdown()
})

const sameOrigin = { origin: ORIGIN, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...sameOrigin, ...headers },
    body: JSON.stringify(body),
  })

/** The decision spans of one route, oldest first. */
const decisionsOf = (route: string) =>
  sdk
    .spans()
    .filter(
      (span) => span.name === 'portcullis.authentication' && span.attributes[TelemetryNames.route] === route,
    )

describe('decisions over a real Express server', () => {
  const presented: string[] = [PASSWORD]

  it('records a span per decision with the mechanism, the outcome and the problem code', async () => {
    const issued = await apiKeys.issue({ ownerId: 'svc-reports', ownerKind: 'service' })
    presented.push(issued.value)
    const ok = await fetch(`${base}/api/reports`, { headers: { 'x-api-key': issued.value } })
    expect(ok.status).toBe(200)
    const absent = await fetch(`${base}/api/reports`)
    expect(absent.status).toBe(401)
    // A well-formed key of a real id with a forged secret.
    const forged = `${issued.value.slice(0, -6)}AAAAAA`
    presented.push(forged)
    expect((await fetch(`${base}/api/reports`, { headers: { 'x-api-key': forged } })).status).toBe(401)
    const forbidden = await fetch(`${base}/api/exports`, { headers: { 'x-api-key': issued.value } })
    expect(forbidden.status).toBe(403)
    const forbiddenCode = ((await forbidden.json()) as { code: string }).code

    const reports = decisionsOf('/api/reports').map((span) => ({ ...span.attributes }))
    expect(reports).toEqual([
      {
        [TelemetryNames.mechanism]: 'api-key',
        [TelemetryNames.outcome]: 'granted',
        [TelemetryNames.method]: 'GET',
        [TelemetryNames.route]: '/api/reports',
      },
      {
        [TelemetryNames.mechanism]: 'none',
        [TelemetryNames.outcome]: 'refused',
        [TelemetryNames.problemCode]: 'authentication.required',
        [TelemetryNames.method]: 'GET',
        [TelemetryNames.route]: '/api/reports',
      },
      {
        [TelemetryNames.mechanism]: 'api-key',
        [TelemetryNames.outcome]: 'refused',
        [TelemetryNames.problemCode]: 'authentication.required',
        [TelemetryNames.method]: 'GET',
        [TelemetryNames.route]: '/api/reports',
      },
    ])
    expect(decisionsOf('/api/exports').map((span) => ({ ...span.attributes }))).toEqual([
      {
        [TelemetryNames.mechanism]: 'api-key',
        [TelemetryNames.outcome]: 'refused',
        [TelemetryNames.problemCode]: forbiddenCode,
        [TelemetryNames.method]: 'GET',
        [TelemetryNames.route]: '/api/exports',
      },
    ])
    for (const span of decisionsOf('/api/reports')) {
      expect(span.ended).toBe(true)
      expect(span.instrumentationScope.name).toBe('@portcullis/opentelemetry')
    }
  })

  it('counts refusals by code, and sign-ins over the rate limit by limiter', async () => {
    expect((await post('/auth/register', { username: 'ada', password: PASSWORD })).status).toBe(201)
    const login = await post('/auth/login', { username: 'ada', password: PASSWORD })
    expect(login.status).toBe(200)
    const cookie = login.headers.getSetCookie().map((value) => value.split(';')[0] ?? '')
    presented.push(...cookie, ...cookie.map((pair) => pair.slice(pair.indexOf('=') + 1)))
    const me = await fetch(`${base}/api/me`, { headers: { cookie: cookie.join('; ') } })
    expect(me.status).toBe(200)
    expect(decisionsOf('/api/me').at(-1)?.attributes[TelemetryNames.mechanism]).toBe('session')

    const statuses: number[] = []
    for (let attempt = 0; attempt < 5; attempt += 1) {
      statuses.push((await post('/auth/login', { username: 'ada', password: 'wrong password!' })).status)
    }
    // A success resets the account's counter: three more attempts pass the limit, the rest are refused.
    expect(statuses).toEqual([401, 401, 401, 429, 429])

    const hits = await sdk.points(TelemetryNames.rateLimitHits)
    expect(hits).toEqual([{ attributes: { [TelemetryNames.limiter]: 'login.account' }, value: 2 }])
    const refusals = await sdk.points(TelemetryNames.refusals)
    const byCode = Object.fromEntries(
      refusals.map((point) => [point.attributes[TelemetryNames.problemCode], point.value]),
    )
    expect(byCode['authentication.required']).toBe(2)
    expect(Object.values(byCode).reduce((sum: number, value) => sum + Number(value), 0)).toBe(3)
  })

  it('never puts a presented credential in a span or metric attribute', async () => {
    expect(presented.length).toBeGreaterThanOrEqual(5)
    const values: string[] = []
    for (const span of sdk.spans()) values.push(span.name, ...Object.values(span.attributes).map(String))
    for (const name of [TelemetryNames.refusals, TelemetryNames.rateLimitHits]) {
      for (const point of await sdk.points(name)) values.push(...Object.values(point.attributes).map(String))
    }
    expect(values.length).toBeGreaterThan(20)
    for (const secret of presented) {
      expect(secret.length).toBeGreaterThanOrEqual(8)
      for (const value of values) expect(value.includes(secret), `${value} holds a credential`).toBe(false)
    }
  })
})
