import { type FaultProxy, startFaultProxy } from '@portcullis/database-tooling/fault-proxy'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LoadProfile, runMixedLoad } from '../load/mixed-load.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The reference app on a real Postgres, its pool behind a loopback fault proxy: every database connection
 * is cut twice in the middle of a mixed load (API keys, browser sessions on the JSON API and on HTML
 * pages, password sign-ins). Answers during a cut may be 503, always with `Retry-After`, never 401/403
 * and never another user's data; the app recovers on the same pool. (That a write cut mid-operation ends
 * whole or untouched is proven per store operation in packages/postgres.)
 */
let app: TestApp
let proxy: FaultProxy
const profiles: LoadProfile[] = []
/** The session cookie's name (`__Host-` prefixed only over https). */
let sessionCookieName = ''
/** The profile of password sign-ins: a 303 to the home page is its success. */
const SIGN_IN_PROFILE = 'sign-in form of bob'
const HTML = { accept: 'text/html,application/xhtml+xml' }
const signInForm = (username: string) => ({
  url: `${app.url}/sign-in`,
  method: 'POST',
  headers: { ...HTML, origin: app.url, 'content-type': 'application/x-www-form-urlencoded' },
  body: `username=${username}&password=${encodeURIComponent(app.password(username))}`,
})
/** RFC 9110 section 10.2.3: delta-seconds. */
const DELTA_SECONDS = /^\d+$/

beforeAll(async () => {
  app = await startTestApp({}, async (connectionString) => {
    const target = new URL(connectionString)
    proxy = await startFaultProxy({ targetHost: target.hostname, targetPort: Number(target.port || 5432) })
    return proxy.through(connectionString)
  })
  for (const ownerId of ['demo-alice', 'demo-bob']) {
    const issued = await app.apiKeys.issue({ ownerId, ownerKind: 'user' })
    profiles.push({
      name: `api key of ${ownerId}`,
      request: () => ({ url: `${app.url}/api/whoami`, headers: { 'x-api-key': issued.value } }),
      principal: ownerId,
    })
  }
  for (const username of ['carol']) {
    const signIn = await fetch(`${app.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: app.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=${username}&password=${encodeURIComponent(app.password(username))}`,
    })
    expect(signIn.status).toBe(303)
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    sessionCookieName = cookie.split('=')[0] ?? ''
    profiles.push({
      name: `session of ${username}`,
      request: () => ({ url: `${app.url}/api/whoami`, headers: { cookie } }),
      principal: `demo-${username}`,
    })
    profiles.push({
      name: `account page of ${username}`,
      request: () => ({ url: `${app.url}/account`, headers: { ...HTML, cookie } }),
    })
  }
  profiles.push({ name: SIGN_IN_PROFILE, request: () => signInForm('bob') })
}, 120_000)
afterAll(async () => {
  await app?.close()
  await proxy?.close()
})

describe('the reference app with its database connections cut under load', () => {
  it('503 at worst during a cut, never 401/403 or a wrong principal, and it recovers', async () => {
    const cuts = setInterval(() => proxy.cut(), 1_500)
    let report: Awaited<ReturnType<typeof runMixedLoad>>
    try {
      report = await runMixedLoad({
        profiles,
        clients: 24,
        durationMs: 4_000,
        principalOf: (body) => (body as { principal?: { id?: string } } | undefined)?.principal?.id,
      })
    } finally {
      clearInterval(cuts)
    }
    console.log(`database cuts: ${JSON.stringify(report.byProfile)}`)
    expect(report.wrongPrincipals).toBe(0)
    expect(report.transportErrors).toBe(0)
    for (const [name, counts] of Object.entries(report.byProfile)) {
      const success = name === SIGN_IN_PROFILE ? '303' : '200'
      expect(
        Object.keys(counts).filter((status) => ![success, '503'].includes(status)),
        name,
      ).toEqual([])
    }
    expect(report.byStatus['200'] ?? 0).toBeGreaterThan(0)
    // Every 503 of every profile (HTML pages and the sign-in form included) said when to retry.
    expect(report.unavailableWithoutRetryAfter).toEqual({})
    // After the cuts: every profile answers again on the same pool.
    for (const profile of profiles) {
      const { url, ...init } = profile.request()
      const response = await fetch(url, { redirect: 'manual', ...init })
      expect(response.status, profile.name).toBe(profile.name === SIGN_IN_PROFILE ? 303 : 200)
    }
  }, 60_000)

  it('while the database is down, every page, form and API answer is 503 with Retry-After', async () => {
    // Session ids and an API key no instance has cached: each request must reach the database.
    const unknownSession = `${sessionCookieName}=${'A'.repeat(43)}`
    const freshKey = (await app.apiKeys.issue({ ownerId: 'demo-bob', ownerKind: 'user' })).value
    const probes: [
      string,
      { url: string; method?: string; headers?: Record<string, string>; body?: string },
    ][] = [
      ['home page (session)', { url: `${app.url}/`, headers: { ...HTML, cookie: unknownSession } }],
      ['account page', { url: `${app.url}/account`, headers: { ...HTML, cookie: unknownSession } }],
      ['tenant page', { url: `${app.url}/tenants`, headers: { ...HTML, cookie: unknownSession } }],
      ['JSON API (session)', { url: `${app.url}/api/whoami`, headers: { cookie: unknownSession } }],
      ['JSON API (API key)', { url: `${app.url}/api/whoami`, headers: { 'x-api-key': freshKey } }],
      ['sign-in form', signInForm('carol')],
      [
        'sign-in API',
        {
          url: `${app.url}/auth/login`,
          method: 'POST',
          headers: { origin: app.url, 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'carol', password: app.password('carol') }),
        },
      ],
      ['health', { url: `${app.url}/healthz` }],
    ]
    await proxy.down()
    const answers: Record<string, string> = {}
    try {
      for (const [name, probe] of probes) {
        const response = await fetch(probe.url, { redirect: 'manual', ...probe })
        const type = response.headers.get('content-type') ?? ''
        const retryAfter = response.headers.get('retry-after') ?? ''
        await response.arrayBuffer()
        answers[name] =
          `${response.status} ${DELTA_SECONDS.test(retryAfter) ? 'Retry-After' : 'no Retry-After'} ${type.split(';')[0]}`
      }
    } finally {
      await proxy.up()
    }
    const html = ['home page (session)', 'account page', 'tenant page', 'sign-in form']
    expect(answers).toEqual(
      Object.fromEntries(
        probes.map(([name]) => [
          name,
          `503 Retry-After ${html.includes(name) ? 'text/html' : name === 'health' ? 'application/json' : 'application/problem+json'}`,
        ]),
      ),
    )
  }, 60_000)
})
