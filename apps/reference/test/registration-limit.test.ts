import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningReferenceApp } from '../src/server.js'
import { startSecondInstance, startTestApp, type TestApp } from './support/reference-app.js'

/**
 * RFC 7591 registration (`PORTCULLIS_OAUTH_REGISTRATION=true`) is limited per client address in the app's
 * shared Postgres store: two instances on one database count together, so a client cannot get ten more
 * from the next instance. The address is the app's: `PORTCULLIS_TRUSTED_PROXIES` decides whose
 * `X-Forwarded-For` is believed, and an IPv6 client counts by its /64.
 */
let app: TestApp
let other: RunningReferenceApp
/** The library's default: 10 registrations per client address and minute. */
const PER_MINUTE = 10

beforeAll(async () => {
  // The test client is the proxy: 127.0.0.1's X-Forwarded-For names the client.
  app = await startTestApp({ authorizationServer: { registration: true }, trustedProxies: ['127.0.0.1'] })
  other = await startSecondInstance(app, 'portcullis-registration-second')
}, 120_000)
afterAll(async () => {
  await other?.close()
  await app?.close()
})

const register = (origin: string, client: string) =>
  fetch(`${origin}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
    body: JSON.stringify({
      client_name: 'Registered agent',
      redirect_uris: ['http://127.0.0.1:33420/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  })

describe('registration limits across instances', () => {
  it('counts one address on both instances together', async () => {
    const statuses: number[] = []
    for (let index = 0; index < PER_MINUTE; index += 1) {
      const answer = await register(index % 2 === 0 ? app.url : other.url, '203.0.113.7')
      await answer.text()
      statuses.push(answer.status)
    }
    expect(statuses).toEqual(Array(PER_MINUTE).fill(201))
    for (const origin of [other.url, app.url]) {
      const refused = await register(origin, '203.0.113.7')
      expect(refused.status).toBe(429)
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/)
      expect(await refused.json()).toMatchObject({ code: 'rate_limited' })
    }
    // Another address has its own count.
    expect((await register(other.url, '203.0.113.8')).status).toBe(201)
  })

  it('counts an IPv6 client by its /64, whichever of its addresses it uses', async () => {
    for (let index = 0; index < PER_MINUTE; index += 1) {
      const answer = await register(index % 2 === 0 ? other.url : app.url, `2001:db8:7:7::${index + 1}`)
      await answer.text()
      expect(answer.status).toBe(201)
    }
    expect((await register(app.url, '2001:db8:7:7:ffff:ffff:ffff:ffff')).status).toBe(429)
    expect((await register(app.url, '2001:db8:7:8::1')).status).toBe(201)
  })
})
