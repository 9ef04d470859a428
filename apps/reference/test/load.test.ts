import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LoadProfile, runMixedLoad } from '../load/mixed-load.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * 200 concurrent clients mixing the app's mechanisms (API keys of several owners, workload JWTs of several
 * services, session cookies and local access tokens of demo users, anonymous pages) against the reference app on Postgres for a fixed, bounded time on loopback.
 * Every authenticated answer must name the client's own principal; no 5xx; the heap after the run (after
 * a full collection) stays within 64 MiB of the heap before it.
 */
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const HEAP_GROWTH_BOUND_MIB = 64
const CLIENTS = 200
const DURATION_MS = 8_000

let app: TestApp
const profiles: LoadProfile[] = []
beforeAll(async () => {
  // A bounded load on a shared CI machine (other suites run beside it): requests wait for a database
  // connection instead of failing fast, so an overloaded machine shows up as latency, not as 503s.
  app = await startTestApp({ databasePool: { maxConnections: 20, connectionTimeoutMs: 30_000 } })
  // Principals the app's directory knows (it refuses unknown ones with 401).
  const owners = [
    { ownerId: 'demo-alice', ownerKind: 'user' },
    { ownerId: 'demo-bob', ownerKind: 'user' },
    { ownerId: 'demo-carol', ownerKind: 'user' },
    { ownerId: 'svc-reporting', ownerKind: 'service' },
  ] as const
  for (const { ownerId: owner, ownerKind } of owners) {
    const issued = await app.apiKeys.issue({ ownerId: owner, ownerKind })
    profiles.push({
      name: `api key of ${owner}`,
      request: () => ({ url: `${app.url}/api/whoami`, headers: { 'x-api-key': issued.value } }),
      principal: owner,
    })
  }
  for (const subject of ['svc-reporting']) {
    const token = await app.keys.workloadSigner.mint({
      subject,
      scopes: ['reports:read'],
      lifetimeSeconds: 600,
    })
    profiles.push({
      name: `workload JWT of ${subject}`,
      request: () => ({ url: `${app.url}/api/whoami`, headers: { authorization: `Bearer ${token}` } }),
      principal: subject,
    })
  }
  // A browser session of a demo user, signed in through the app's own sign-in form.
  for (const username of ['alice', 'bob']) {
    const signIn = await fetch(`${app.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: app.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=${username}&password=${encodeURIComponent(app.password(username))}`,
    })
    if (signIn.status !== 303) throw new Error(`sign-in of ${username}: ${signIn.status}`)
    const cookie =
      signIn.headers
        .getSetCookie()
        .find((line) => line.startsWith('portcullis-session='))
        ?.split(';')[0] ?? ''
    profiles.push({
      name: `session of ${username}`,
      request: () => ({ url: `${app.url}/api/whoami`, headers: { cookie } }),
      principal: `demo-${username}`,
    })
  }
  // A local access token (5 minutes, longer than the run) from the JSON token route.
  for (const username of ['carol']) {
    const login = await fetch(`${app.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: app.password(username) }),
    })
    if (login.status !== 200) throw new Error(`token sign-in of ${username}: ${login.status}`)
    const { access_token: token } = (await login.json()) as { access_token: string }
    profiles.push({
      name: `local access token of ${username}`,
      request: () => ({ url: `${app.url}/api/whoami`, headers: { authorization: `Bearer ${token}` } }),
      principal: `demo-${username}`,
    })
  }
  profiles.push({ name: 'anonymous health', request: () => ({ url: `${app.url}/healthz` }) })
  // Steady state, as a running service would be: one request per profile first (the workload issuer's
  // key set is fetched, caches are filled), so the measured run is not a cold start under 200 clients.
  for (const profile of profiles) {
    const { url, headers } = profile.request()
    const warm = await fetch(url, headers === undefined ? {} : { headers })
    await warm.text()
    if (!warm.ok) throw new Error(`warm-up of ${profile.name}: ${warm.status}`)
  }
}, 120_000)
afterAll(async () => {
  await app?.close()
})

describe('load: 200 clients mixing every mechanism', () => {
  it('no 5xx, no wrong principal, and a bounded heap', async () => {
    gc()
    const before = process.memoryUsage().heapUsed
    const report = await runMixedLoad({
      profiles,
      clients: CLIENTS,
      durationMs: DURATION_MS,
      principalOf: (body) => (body as { principal?: { id?: string } } | undefined)?.principal?.id,
    })
    gc()
    const growthMiB = (process.memoryUsage().heapUsed - before) / 2 ** 20
    console.log(
      `load: ${report.requests} requests, ${report.requestsPerSecond.toFixed(0)}/s, p50 ${report.p50Ms.toFixed(1)} ms, p99 ${report.p99Ms.toFixed(1)} ms, statuses ${JSON.stringify(report.byProfile)}, first failures ${JSON.stringify(report.firstFailures)}, heap ${growthMiB.toFixed(1)} MiB`,
    )
    expect(report.requests).toBeGreaterThan(CLIENTS)
    expect(report.transportErrors).toBe(0)
    expect(Object.keys(report.byStatus).filter((status) => Number(status) >= 500)).toEqual([])
    expect(Object.keys(report.byStatus)).toEqual(['200'])
    expect(report.wrongPrincipals).toBe(0)
    expect(growthMiB).toBeLessThan(HEAP_GROWTH_BOUND_MIB)
  }, 60_000)
})
