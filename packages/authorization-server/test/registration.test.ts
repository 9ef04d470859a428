import { PortcullisError } from '@portcullis/core/errors'
import { MemoryRateLimitStore, type RateLimitStore } from '@portcullis/core/local-accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, RESOURCE, startHarness } from './support/harness.js'
import { authorize, redeemCode } from './support/oauth-client.js'

const REDIRECT = 'http://127.0.0.1:49152/callback'

const register = (issuer: string, metadata: Record<string, unknown> = {}) =>
  fetch(`${issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Registered client',
      redirect_uris: ['http://127.0.0.1/callback'],
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  })

describe('dynamic client registration off (the default)', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness()
  })
  afterAll(async () => h.close())

  it('is neither advertised nor served', async () => {
    expect((await h.server.metadata()).registration_endpoint).toBeUndefined()
    const response = await register(h.issuer)
    expect(response.status).toBe(404)
  })
})

describe('dynamic client registration on', () => {
  let h: Harness
  const offset = { value: 0 }
  beforeAll(async () => {
    h = await startHarness({
      storeClockOffset: offset,
      overrides: { registration: { rateLimit: { perMinute: 4 }, unusedClientTtlSeconds: 60 } },
    })
  })
  afterAll(async () => h.close())

  it('registers a public client that completes the flow, and keeps it once a grant is made', async () => {
    expect((await h.server.metadata()).registration_endpoint).toBe(`${h.issuer}/reg`)
    const response = await register(h.issuer)
    expect(response.status).toBe(201)
    const client = (await response.json()) as { client_id: string; client_secret?: string }
    expect(client.client_secret).toBeUndefined()
    const before = await h.store.find('Client', { id: client.client_id })
    const ttl = (before?.expiresAt?.getTime() ?? 0) - Date.now()
    expect(ttl).toBeGreaterThan(55_000)
    expect(ttl).toBeLessThanOrEqual(60_000)

    const outcome = await authorize(h.issuer, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      resource: RESOURCE,
    })
    const token = await redeemCode(
      h.issuer,
      client.client_id,
      REDIRECT,
      outcome.code as string,
      outcome.verifier,
    )
    expect(token.status).toBe(200)
    expect((await h.store.find('Client', { id: client.client_id }))?.expiresAt).toBeUndefined()

    const unused = (await (await register(h.issuer)).json()) as { client_id: string }
    offset.value = 61_000
    try {
      expect(await h.store.find('Client', { id: unused.client_id })).toBeUndefined()
      const refused = await authorize(h.issuer, {
        clientId: unused.client_id,
        redirectUri: REDIRECT,
        resource: RESOURCE,
      })
      expect(refused.redirect).toBeUndefined()
      expect(((await refused.response.json()) as { code: string }).code).toBe('invalid_client')
      expect(await h.store.find('Client', { id: client.client_id })).toBeDefined()
    } finally {
      offset.value = 0
    }
  })

  it('refuses a registration asking for a response type the server does not offer', async () => {
    const implicit = await register(h.issuer, {
      redirect_uris: ['https://client.example/cb'],
      response_types: ['token'],
    })
    expect(implicit.status).toBe(400)
    expect(((await implicit.json()) as { error: string }).error).toBe('invalid_client_metadata')
  })

  it('answers 429 with Retry-After once a client address exceeds the rate', async () => {
    const statuses: number[] = []
    let last = await register(h.issuer)
    statuses.push(last.status)
    for (let i = 0; i < 5; i += 1) {
      last = await register(h.issuer)
      statuses.push(last.status)
    }
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(2)
    expect(statuses.slice(-1)).toEqual([429])
    expect(last.headers.get('content-type')).toBe('application/problem+json')
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(((await last.json()) as { code: string }).code).toBe('rate_limited')
  })
})

describe('registration behind a trusted proxy', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({
      overrides: { registration: { rateLimit: { perMinute: 1 }, trustedProxies: ['127.0.0.1'] } },
    })
  })
  afterAll(async () => h.close())

  const from = (address: string) =>
    fetch(`${h.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.1, ${address}` },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'], application_type: 'native' }),
    })

  it('counts each client by its rightmost untrusted X-Forwarded-For hop, never the leftmost', async () => {
    expect((await from('203.0.113.7')).status).toBe(201)
    expect((await from('203.0.113.7')).status).toBe(429)
    expect((await from('203.0.113.8')).status).toBe(201)
  })

  it('refuses a malformed proxy list at startup', async () => {
    await expect(
      startHarness({ overrides: { registration: { trustedProxies: ['10.0.0.1/99'] } } }),
    ).rejects.toMatchObject({ code: 'authorization_server.invalid_option' })
  })
})

describe('the registration limit counts IPv6 clients by their /64', () => {
  const from = (issuer: string, address: string) =>
    fetch(`${issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'], application_type: 'native' }),
    })
  const behindProxy = (rateLimit: Record<string, number>, rateLimits?: MemoryRateLimitStore) =>
    startHarness({
      overrides: {
        registration: { rateLimit, trustedProxies: ['127.0.0.1'], ...(rateLimits ? { rateLimits } : {}) },
      },
    })

  it('by default: fresh addresses of one /64 share one budget, another /64 has its own', async () => {
    const h = await behindProxy({ perMinute: 5 })
    try {
      const statuses: number[] = []
      for (let i = 1; i <= 20; i++)
        statuses.push((await from(h.issuer, `2001:db8:1:2::${i.toString(16)}`)).status)
      expect(statuses.filter((status) => status === 201)).toHaveLength(5)
      expect(statuses.slice(5).every((status) => status === 429)).toBe(true)
      expect((await from(h.issuer, '2001:db8:1:3::1')).status).toBe(201)
      // An IPv4 client is its own address; the IPv4-mapped form of it is the same client.
      for (let i = 0; i < 5; i++) expect((await from(h.issuer, '203.0.113.9')).status).toBe(201)
      expect((await from(h.issuer, '::ffff:203.0.113.9')).status).toBe(429)
    } finally {
      await h.close()
    }
  })

  it('with ipv6PrefixLength 128 each IPv6 address counts on its own', async () => {
    const h = await behindProxy({ perMinute: 1, ipv6PrefixLength: 128 })
    try {
      expect((await from(h.issuer, '2001:db8:1:2::1')).status).toBe(201)
      expect((await from(h.issuer, '2001:db8:1:2::1')).status).toBe(429)
      expect((await from(h.issuer, '2001:db8:1:2::2')).status).toBe(201)
    } finally {
      await h.close()
    }
  })

  it('two instances sharing one RateLimitStore share the count', async () => {
    const shared = new MemoryRateLimitStore()
    const first = await behindProxy({ perMinute: 2 }, shared)
    const second = await behindProxy({ perMinute: 2 }, shared)
    try {
      expect((await from(first.issuer, '2001:db8:9::1')).status).toBe(201)
      expect((await from(second.issuer, '2001:db8:9::2')).status).toBe(201)
      expect((await from(first.issuer, '2001:db8:9::3')).status).toBe(429)
      expect((await from(second.issuer, '2001:db8:9::4')).status).toBe(429)
    } finally {
      await first.close()
      await second.close()
    }
  })

  it('refuses registration with 503 and Retry-After when the store cannot count (fails closed)', async () => {
    const down: RateLimitStore = {
      consume: async () => {
        throw Object.assign(new PortcullisError('test.unavailable', 'unavailable', 'down'), {
          retryAfterSeconds: 3,
        })
      },
      reset: async () => undefined,
    }
    const h = await startHarness({ overrides: { registration: { rateLimits: down } } })
    try {
      const response = await from(h.issuer, '203.0.113.1')
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('3')
      expect(((await response.json()) as { code: string }).code).toBe('temporarily_unavailable')
    } finally {
      await h.close()
    }
  })
})
