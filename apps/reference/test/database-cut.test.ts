import { type FaultProxy, startFaultProxy } from '@portcullis/database-tooling/fault-proxy'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LoadProfile, runMixedLoad } from '../load/mixed-load.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The reference app on a real Postgres, its pool behind a loopback fault proxy: every database connection
 * is cut twice in the middle of a mixed load (API keys and browser sessions). Answers during a cut may be
 * 503, never 401/403 and never another user's data; the app recovers on the same pool. (That a write
 * cut mid-operation ends whole or untouched is proven per store operation in packages/postgres.)
 */
let app: TestApp
let proxy: FaultProxy
const profiles: LoadProfile[] = []

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
    profiles.push({
      name: `session of ${username}`,
      request: () => ({ url: `${app.url}/api/whoami`, headers: { cookie } }),
      principal: `demo-${username}`,
    })
  }
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
    const statuses = Object.keys(report.byStatus)
    expect(statuses.filter((status) => !['200', '503'].includes(status))).toEqual([])
    expect(report.byStatus['200'] ?? 0).toBeGreaterThan(0)
    // After the cuts: every profile answers 200 again on the same pool.
    for (const profile of profiles) {
      const { url, headers } = profile.request()
      const response = await fetch(url, headers === undefined ? {} : { headers })
      expect(response.status, profile.name).toBe(200)
    }
  }, 60_000)
})
