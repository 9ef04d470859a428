import { randomBytes } from 'node:crypto'
import { beforeEach, describe, expect, it } from 'vitest'
import { InstrumentedApiKeyStore } from '../../test/support/api-key-store.js'
import { headerSource } from '../../test/support/credential-source.js'
import type { AuthenticationMechanism } from '../authentication/mechanism.js'
import { apiKey } from './api-key-mechanism.js'
import { ApiKeyPepperRing } from './api-key-pepper.js'
import { ApiKeyService } from './api-key-service.js'
import { ApiKeyUsageRecorder } from './api-key-usage-recorder.js'
import type { IssuedApiKey } from './issued-api-key.js'

let now: number
let store: InstrumentedApiKeyStore
let keys: ApiKeyService
let usage: ApiKeyUsageRecorder
let mechanism: AuthenticationMechanism
let issued: IssuedApiKey

beforeEach(async () => {
  now = Date.UTC(2030, 0, 1)
  store = new InstrumentedApiKeyStore()
  keys = new ApiKeyService({
    store,
    peppers: new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }),
    prefix: 'acme',
    clock: () => now,
  })
  usage = new ApiKeyUsageRecorder({ store, flushIntervalMs: 3_600_000 })
  mechanism = apiKey({ service: keys, usage, clock: () => now })
  issued = await keys.issue({
    ownerId: 'svc-reports',
    restrictions: { scopes: ['reports:read'], tenants: { t1: ['viewer'] } },
    expiresAt: new Date(now + 60_000),
    label: 'nightly export',
  })
  store.lookups = 0
})

const present = (value: string | undefined) =>
  mechanism.authenticate(headerSource(value === undefined ? {} : { 'x-api-key': value }))

describe('API key mechanism', () => {
  it('authenticates the owner with the key restrictions and expiry, in one lookup', async () => {
    expect(await present(issued.value)).toEqual({
      kind: 'authenticated',
      principal: { id: 'svc-reports', kind: 'service' },
      evidence: {
        mechanism: 'api-key',
        credentialType: 'api-key',
        attributes: { keyId: issued.keyId, label: 'nightly export' },
        restrictions: { scopes: ['reports:read'], tenants: { t1: ['viewer'] } },
        expiresAt: new Date(now + 60_000),
      },
    })
    expect(store.lookups).toBe(1)
  })

  it('answers none without a header and does no work', async () => {
    expect((await present(undefined)).kind).toBe('none')
    expect(store.lookups).toBe(0)
  })

  const malformed: [string, (value: string) => string][] = [
    ['empty', () => ''],
    ['prefix only', () => 'acme_'],
    ['another prefix', (value) => `acmf${value.slice(4)}`],
    ['prefix in another case', (value) => `ACME${value.slice(4)}`],
    ['missing the prefix', (value) => value.slice(5)],
    ['a key id one char short', (value) => `${value.slice(0, 20)}${value.slice(21)}`],
    ['a key id one char long', (value) => `${value.slice(0, 21)}A${value.slice(21)}`],
    ['a secret one char short', (value) => value.slice(0, -1)],
    ['a secret one char long', (value) => `${value}A`],
    ['a dash instead of the separator', (value) => `${value.slice(0, 21)}-${value.slice(22)}`],
    ['standard base64 characters', (value) => `${value.slice(0, -2)}+/`],
    ['padding', (value) => `${value.slice(0, -1)}=`],
    ['a non-canonical secret', (value) => `${value.slice(0, -1)}${nonCanonicalTwin(value.at(-1) ?? 'A')}`],
    ['leading whitespace', (value) => ` ${value.slice(1)}`],
    ['trailing whitespace', (value) => `${value.slice(0, -1)} `],
    ['a control character', (value) => `${value.slice(0, -1)}\u0007`],
    ['a Cyrillic lookalike', (value) => `${value.slice(0, -1)}\u0430`],
    ['two keys joined by a proxy', (value) => `${value}, ${value}`],
    ['a bearer scheme', (value) => `Bearer ${value}`],
    ['a huge value', (value) => value.repeat(1000)],
  ]

  it.each(malformed)('rejects a value with %s as invalid with zero store lookups', async (_name, mutate) => {
    const value = mutate(issued.value)
    expect(value).not.toBe(issued.value)
    const outcome = await present(value)
    expect(outcome).toEqual({ kind: 'invalid', reason: 'api-key: malformed value' })
    expect(store.lookups).toBe(0)
  })

  it('rejects expired and revoked keys, and answers a store outage as unavailable', async () => {
    now += 60_000
    expect((await present(issued.value)).kind).toBe('invalid')
    now -= 60_000
    store.down = true
    expect(await present(issued.value)).toEqual({ kind: 'unavailable', reason: 'api-key: store unavailable' })
    store.down = false
    await keys.revoke(issued.keyId)
    expect((await present(issued.value)).kind).toBe('invalid')
  })

  it('reports the overlap end as the credential expiry during a rotation', async () => {
    await keys.rotate(issued.keyId, { overlapSeconds: 30 })
    expect(await present(issued.value)).toMatchObject({
      kind: 'authenticated',
      evidence: { expiresAt: new Date(now + 30_000) },
    })
  })

  it('records usage off the request path, coalesced per key, and survives a failing sink', async () => {
    for (let i = 0; i < 5; i++) {
      now += 1000
      expect((await present(issued.value)).kind).toBe('authenticated')
    }
    expect(store.usageWrites).toHaveLength(0)
    expect(usage.stats().buffered).toBe(1)
    await usage.flush()
    expect(store.usageWrites).toEqual([[{ keyId: issued.keyId, usedAt: new Date(now) }]])
    expect((await store.inner.get(issued.keyId))?.lastUsedAt).toEqual(new Date(now))

    store.usageDown = true
    await present(issued.value)
    await usage.flush()
    expect(usage.stats()).toMatchObject({ flushFailures: 1, buffered: 0 })
    store.usageDown = false
    expect((await present(issued.value)).kind).toBe('authenticated')
    await usage.close()
    expect(usage.stats().flushes).toBe(2)
  })

  it('flushes on its own timer, without keeping the process alive', async () => {
    const timed = new ApiKeyUsageRecorder({ store, flushIntervalMs: 20 })
    timed.record(issued.keyId, now)
    expect(store.usageWrites).toHaveLength(0)
    await new Promise((resolve) => setTimeout(resolve, 80))
    expect(store.usageWrites).toEqual([[{ keyId: issued.keyId, usedAt: new Date(now) }]])
    expect(timed.stats()).toMatchObject({ buffered: 0, flushes: 1 })
  })

  it('bounds the usage buffer and counts what it drops', async () => {
    const small = new ApiKeyUsageRecorder({ store, capacity: 2 })
    small.record('a', 1)
    small.record('b', 2)
    small.record('a', 3)
    small.record('c', 4)
    expect(small.stats()).toMatchObject({ buffered: 2, dropped: 1 })
    await small.close()
    small.record('d', 5)
    expect(small.stats().buffered).toBe(0)
  })

  it('uses the configured header and describes it for OpenAPI', async () => {
    const custom = apiKey({ service: keys, header: 'X-Service-Key', name: 'service-key' })
    expect(custom.securityScheme).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-service-key' })
    expect((await custom.authenticate(headerSource({ 'x-service-key': issued.value }))).kind).toBe(
      'authenticated',
    )
    expect((await custom.authenticate(headerSource({ 'x-api-key': issued.value }))).kind).toBe('none')
    expect(() => apiKey({ service: keys, header: 'x api key' })).toThrow(/header/)
  })
})

function nonCanonicalTwin(last: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  return alphabet[alphabet.indexOf(last) ^ 1] ?? 'B'
}
