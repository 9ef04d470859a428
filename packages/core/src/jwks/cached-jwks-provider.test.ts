import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type JwksServer, startJwksServer } from '../../test/support/jwks-server.js'
import { generateTestKey } from '../../test/support/jwt.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { CachedJWKSProvider, type CachedJWKSProviderOptions } from './cached-jwks-provider.js'
import type { JWKSFetcher } from './jwks-fetcher.js'
import type { JWKSKeySelection } from './jwks-provider.js'

const issuer = 'https://issuer.test'
const es1 = generateTestKey('ES256', 'es-1')
const es2 = generateTestKey('ES256', 'es-2')

let server: JwksServer
let now: number
let provider: CachedJWKSProvider | undefined

beforeEach(async () => {
  server = await startJwksServer()
  server.setDocument({ keys: [es1.jwk] })
  now = Date.UTC(2030, 0, 1)
})

afterEach(async () => {
  await provider?.close()
  provider = undefined
  await server.close()
})

function build(options: CachedJWKSProviderOptions = {}): CachedJWKSProvider {
  provider = new CachedJWKSProvider({
    allowInsecureLoopback: true,
    clock: () => now,
    sources: [{ issuer, jwksUri: server.url, algorithms: ['ES256', 'EdDSA'] }],
    ...options,
  })
  return provider
}

const select = (jwks: CachedJWKSProvider, kid: string, alg: 'ES256' | 'EdDSA' | 'RS256' = 'ES256') =>
  jwks.selectKey({ issuer, jwksUri: server.url, kid, alg })

const kinds = (selections: JWKSKeySelection[]) => selections.map((selection) => selection.kind)

describe('CachedJWKSProvider: fresh reads and single flight', () => {
  it('fetches once, then serves fresh reads without fetching, returning the same imported key', async () => {
    const jwks = build()
    const first = await select(jwks, 'es-1')
    expect(first.kind).toBe('key')
    for (let i = 0; i < 50; i++) {
      const again = await select(jwks, 'es-1')
      expect(again.kind === 'key' && first.kind === 'key' && again.key.key === first.key.key).toBe(true)
    }
    expect(server.hits).toBe(1)
  })

  it('coalesces concurrent cold lookups into one fetch', async () => {
    const jwks = build()
    const results = await Promise.all(Array.from({ length: 40 }, () => select(jwks, 'es-1')))
    expect(new Set(kinds(results))).toEqual(new Set(['key']))
    expect(server.hits).toBe(1)
  })

  it('refreshes after max-age, clamped to the configured bounds', async () => {
    server.setDocument({ keys: [es1.jwk] }, { 'cache-control': 'public, max-age=5' })
    const jwks = build()
    await select(jwks, 'es-1')
    now += 20_000 // max-age 5 is raised to the 30 s floor: still fresh
    await select(jwks, 'es-1')
    expect(server.hits).toBe(1)
    now += 11_000
    await select(jwks, 'es-1')
    expect(server.hits).toBe(2)

    server.setDocument({ keys: [es1.jwk] }, { 'cache-control': 'max-age=31536000' })
    now += 31_000
    await select(jwks, 'es-1')
    expect(server.hits).toBe(3)
    now += 86_399_000 // a year is clamped to 24 h
    await select(jwks, 'es-1')
    expect(server.hits).toBe(3)
    now += 2000
    await select(jwks, 'es-1')
    expect(server.hits).toBe(4)
  })

  it('treats no-store as the minimum freshness, not as a fetch per request', async () => {
    server.setDocument({ keys: [es1.jwk] }, { 'cache-control': 'no-store' })
    const jwks = build()
    for (let i = 0; i < 10; i++) await select(jwks, 'es-1')
    expect(server.hits).toBe(1)
  })

  it('revalidates with If-None-Match and keeps the imported keys on 304', async () => {
    server.setDocument({ keys: [es1.jwk] }, { etag: '"v1"', 'cache-control': 'max-age=60' })
    const jwks = build()
    const first = await select(jwks, 'es-1')
    now += 61_000
    const second = await select(jwks, 'es-1')
    expect(server.hits).toBe(2)
    expect(server.requests[1]?.['if-none-match']).toBe('"v1"')
    expect(first.kind === 'key' && second.kind === 'key' && first.key.key === second.key.key).toBe(true)
    now += 30_000 // the 304 renewed freshness
    await select(jwks, 'es-1')
    expect(server.hits).toBe(2)
  })
})

describe('CachedJWKSProvider: unknown keys', () => {
  it('forces at most one refresh per cooldown, then answers from the negative cache', async () => {
    const jwks = build()
    await select(jwks, 'es-1')
    const storm = await Promise.all(
      Array.from({ length: 30 }, (_, index) => select(jwks, `attacker-${index}`)),
    )
    expect(new Set(kinds(storm))).toEqual(new Set(['invalid']))
    expect(server.hits).toBe(2)
    for (let i = 0; i < 10; i++) expect((await select(jwks, 'attacker-0')).kind).toBe('invalid')
    expect((await select(jwks, 'other')).kind).toBe('invalid')
    expect(server.hits).toBe(2)
    expect(jwks.stats().negativeHits).toBeGreaterThan(0)
    now += 31_000
    expect((await select(jwks, 'attacker-0')).kind).toBe('invalid')
    expect(server.hits).toBe(3)
  })

  it('picks up a key rotated in at the IdP through the forced refresh', async () => {
    const jwks = build()
    expect((await select(jwks, 'es-1')).kind).toBe('key')
    server.setDocument({ keys: [es1.jwk, es2.jwk] })
    expect((await select(jwks, 'es-2')).kind).toBe('key')
    expect(server.hits).toBe(2)
  })

  it('keeps keys isolated by issuer, URL and algorithm', async () => {
    const jwks = build()
    jwks.register({ issuer: 'https://other.test', jwksUri: server.url, algorithms: ['ES256'] })
    expect((await select(jwks, 'es-1', 'EdDSA')).kind).toBe('invalid')
    expect((await select(jwks, 'es-1', 'RS256')).kind).toBe('invalid')
    expect(
      (
        await jwks.selectKey({
          issuer: 'https://unregistered.test',
          jwksUri: server.url,
          kid: 'es-1',
          alg: 'ES256',
        })
      ).kind,
    ).toBe('invalid')
    expect(
      (await jwks.selectKey({ issuer, jwksUri: `${server.url}?x`, kid: 'es-1', alg: 'ES256' })).kind,
    ).toBe('invalid')
    const hitsBefore = server.hits
    expect(
      (await jwks.selectKey({ issuer: 'https://other.test', jwksUri: server.url, kid: 'es-1', alg: 'ES256' }))
        .kind,
    ).toBe('key')
    expect(server.hits).toBe(hitsBefore + 1) // a separate entry, fetched on its own
  })

  it('bounds the negative cache', async () => {
    const jwks = build({ negativeCacheSize: 4 })
    await select(jwks, 'es-1')
    for (let i = 0; i < 10; i++) await select(jwks, `unknown-${i}`)
    const negativeBefore = jwks.stats().negativeHits
    await select(jwks, 'unknown-9') // recent: still remembered
    expect(jwks.stats().negativeHits).toBe(negativeBefore + 1)
    await select(jwks, 'unknown-0') // evicted: answered by the cooldown rule instead, still without a fetch
    expect(jwks.stats().negativeHits).toBe(negativeBefore + 1)
    expect(server.hits).toBe(2)
  })
})

describe('CachedJWKSProvider: outages', () => {
  it('answers unavailable when the key set was never fetched', async () => {
    server.setBehaviour({ kind: 'status', status: 500 })
    const jwks = build()
    const selection = await select(jwks, 'es-1')
    expect(selection).toMatchObject({ kind: 'unavailable', reason: 'jwks.http_status' })
    expect(selection.kind === 'unavailable' && selection.retryAfterSeconds).toBe(5)
  })

  it('backs off after a failure instead of fetching per request', async () => {
    server.setBehaviour({ kind: 'reset' })
    const jwks = build()
    for (let i = 0; i < 10; i++) expect((await select(jwks, 'es-1')).kind).toBe('unavailable')
    expect(server.hits).toBe(1)
    now += 5000
    server.setDocument({ keys: [es1.jwk] })
    expect((await select(jwks, 'es-1')).kind).toBe('key')
    expect(server.hits).toBe(2)
  })

  it('serves known keys within stale-if-error, never unknown ones, and never past the window', async () => {
    server.setDocument({ keys: [es1.jwk] }, { 'cache-control': 'max-age=60' })
    const jwks = build({ staleIfErrorSeconds: 120, failureBackoffSeconds: 0 })
    await select(jwks, 'es-1')
    server.setBehaviour({ kind: 'status', status: 503 })
    now += 61_000
    expect((await select(jwks, 'es-1')).kind).toBe('key')
    expect(jwks.stats().staleServed).toBe(1)
    expect((await select(jwks, 'es-2')).kind).toBe('unavailable')
    now += 120_000
    expect((await select(jwks, 'es-1')).kind).toBe('unavailable')
  })

  it('never replaces live keys with a bad refresh', async () => {
    server.setDocument({ keys: [es1.jwk] }, { 'cache-control': 'max-age=60' })
    const jwks = build({ failureBackoffSeconds: 0 })
    await select(jwks, 'es-1')
    now += 61_000
    server.setBehaviour({ kind: 'raw', body: '{"keys":[],"keys":[]}' })
    expect((await select(jwks, 'es-1')).kind).toBe('key')
    server.setBehaviour({ kind: 'raw', body: JSON.stringify({ keys: [es1.jwk, es1.jwk] }) })
    expect((await select(jwks, 'es-1')).kind).toBe('key')
    server.setBehaviour({ kind: 'raw', body: 'x'.repeat(2048) })
    const tiny = build({ maxDocumentBytes: 1024, failureBackoffSeconds: 0 })
    expect(await select(tiny, 'es-1')).toMatchObject({
      kind: 'unavailable',
      reason: 'jwks.document_too_large',
    })
  })

  it('refuses a redirect from the JWKS endpoint', async () => {
    server.setBehaviour({ kind: 'redirect', location: 'http://127.0.0.1:1/elsewhere' })
    const jwks = build()
    expect(await select(jwks, 'es-1')).toMatchObject({ kind: 'unavailable', reason: 'jwks.redirect_refused' })
  })

  it('answers 304 without cached keys as unavailable', async () => {
    const fetcher: JWKSFetcher = { fetch: async () => ({ status: 'not-modified' }) }
    const jwks = build({ fetcher })
    expect(await select(jwks, 'es-1')).toMatchObject({
      kind: 'unavailable',
      reason: 'jwks.not_modified_without_keys',
    })
  })

  it('warmup fetches every cold source and reports failures', async () => {
    const jwks = build()
    await jwks.warmup()
    expect(server.hits).toBe(1)
    await select(jwks, 'es-1')
    expect(server.hits).toBe(1)
    const failing = new CachedJWKSProvider({
      allowInsecureLoopback: true,
      sources: [{ issuer, jwksUri: 'http://127.0.0.1:1/jwks.json', algorithms: ['ES256'] }],
    })
    await expect(failing.warmup()).rejects.toMatchObject({
      code: 'jwks.warmup_failed',
      errorClass: 'unavailable',
    })
    await failing.close()
  })
})

describe('CachedJWKSProvider: lifecycle', () => {
  it('close is idempotent, closes an owned fetcher once and never a borrowed one', async () => {
    let closes = 0
    const inner: JWKSFetcher = {
      fetch: async () => ({ status: 'ok', body: JSON.stringify({ keys: [es1.jwk] }) }),
      close: () => {
        closes++
      },
    }
    const borrowed = build({ fetcher: inner })
    await borrowed.close()
    await borrowed.close()
    expect(closes).toBe(0)
    const owned = new CachedJWKSProvider({ fetcher: inner, ownsFetcher: true })
    await Promise.all([owned.close(), owned.close()])
    await owned.close()
    expect(closes).toBe(1)
  })

  it('aborts an in-flight refresh on close and answers unavailable afterwards', async () => {
    server.setBehaviour({ kind: 'hang' })
    const jwks = build()
    const pending = select(jwks, 'es-1')
    await new Promise((resolve) => setTimeout(resolve, 50))
    await jwks.close()
    expect(await pending).toMatchObject({ kind: 'unavailable', reason: 'jwks.closed' })
    expect(await select(jwks, 'es-1')).toMatchObject({ kind: 'unavailable', reason: 'jwks.closed' })
    expect(() => jwks.register({ issuer, jwksUri: server.url, algorithms: ['ES256'] })).toThrow(/closed/)
  })
})

describe('CachedJWKSProvider: configuration', () => {
  it.each([
    [
      'plain http to a public host',
      { issuer, jwksUri: 'http://example.com/jwks', algorithms: ['ES256'] },
      'jwks.insecure_uri',
    ],
    [
      'credentials in the URL',
      { issuer, jwksUri: 'https://u:p@example.com/jwks', algorithms: ['ES256'] },
      'jwks.insecure_uri',
    ],
    ['a relative URL', { issuer, jwksUri: '/jwks', algorithms: ['ES256'] }, 'jwks.insecure_uri'],
    [
      'alg none',
      { issuer, jwksUri: 'https://example.com/jwks', algorithms: ['none'] },
      'jwks.unsupported_algorithm',
    ],
    [
      'HS256',
      { issuer, jwksUri: 'https://example.com/jwks', algorithms: ['HS256'] },
      'jwks.unsupported_algorithm',
    ],
    ['no algorithms', { issuer, jwksUri: 'https://example.com/jwks', algorithms: [] }, 'jwks.invalid_source'],
    [
      'a blank issuer',
      { issuer: ' ', jwksUri: 'https://example.com/jwks', algorithms: ['ES256'] },
      'jwks.invalid_source',
    ],
  ])('refuses %s', (_name, source, code) => {
    const jwks = new CachedJWKSProvider()
    let caught: unknown
    try {
      jwks.register(source as never)
    } catch (error) {
      caught = error
    }
    expect(isPortcullisError(caught) && caught.code).toBe(code)
  })

  it('refuses loopback http unless allowed', () => {
    expect(
      () =>
        new CachedJWKSProvider({
          sources: [{ issuer, jwksUri: 'http://127.0.0.1:9/jwks', algorithms: ['ES256'] }],
        }),
    ).toThrow(/https/)
  })

  it('refuses nonsensical policies', () => {
    expect(() => new CachedJWKSProvider({ minMaxAgeSeconds: 100, maxMaxAgeSeconds: 10 })).toThrow(
      /minMaxAgeSeconds/,
    )
    expect(() => new CachedJWKSProvider({ maxKeys: 0 })).toThrow(/maxKeys/)
    expect(() => new CachedJWKSProvider({ staleIfErrorSeconds: -1 })).toThrow(/staleIfErrorSeconds/)
  })
})
