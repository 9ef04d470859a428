import { createHmac, randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { beforeEach, describe, expect, it } from 'vitest'
import { InstrumentedApiKeyStore } from '../../test/support/api-key-store.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { ApiKeyPepperRing, decodeApiKeyPepper } from './api-key-pepper.js'
import { type ApiKeyRecord, apiKeyStatus } from './api-key-record.js'
import { ApiKeyService } from './api-key-service.js'
import type { ApiKeyStore } from './api-key-store.js'
import { MemoryApiKeyStore } from './memory-api-key-store.js'

const pepperV1 = { version: 'v1', secret: randomBytes(32) }
const pepperV2 = { version: 'v2', secret: randomBytes(48) }
let now: number
let store: InstrumentedApiKeyStore

function service(
  peppers = new ApiKeyPepperRing(pepperV1),
  extra: Partial<ConstructorParameters<typeof ApiKeyService>[0]> = {},
) {
  return new ApiKeyService({ store, peppers, prefix: 'acme', clock: () => now, ...extra })
}

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
    return undefined
  } catch (error) {
    return isPortcullisError(error) ? error.code : 'not-a-portcullis-error'
  }
}

beforeEach(() => {
  now = Date.UTC(2030, 0, 1)
  store = new InstrumentedApiKeyStore()
})

describe('issuing API keys', () => {
  it('returns the raw key once and stores only an HMAC digest of it', async () => {
    const issued = await service().issue({
      ownerId: 'svc-reports',
      restrictions: { scopes: ['reports:read'] },
    })
    expect(issued.value).toMatch(/^acme_[A-Za-z0-9_-]{16}_[A-Za-z0-9_-]{43}$/)
    const record = (await store.inner.get(issued.keyId)) as ApiKeyRecord
    const secret = issued.value.slice(-43)
    const expected = createHmac('sha256', pepperV1.secret)
      .update(`portcullis:api-key:v1\u0000${issued.keyId}\u0000${secret}`)
      .digest()
    expect(Buffer.from(record.digest)).toEqual(expected)
    expect(record).toMatchObject({ ownerId: 'svc-reports', ownerKind: 'service', pepperVersion: 'v1' })
    expect(JSON.stringify({ ...record, digest: [...record.digest] })).not.toContain(secret)
  })

  it('never shows the raw key in inspect, toString or JSON', async () => {
    const issued = await service().issue({ ownerId: 'svc-reports' })
    for (const text of [
      inspect(issued),
      String(issued),
      JSON.stringify(issued),
      JSON.stringify({ issued }),
    ]) {
      expect(text).not.toContain(issued.value.slice(-43))
      expect(text).toContain(issued.keyId)
    }
  })

  it('draws 12 bytes for the id, then 32 for the secret, and fails typed on a broken random source', async () => {
    const sizes: number[] = []
    await service(undefined, {
      randomBytes: (size) => {
        sizes.push(size)
        return randomBytes(size)
      },
    }).issue({
      ownerId: 'a',
    })
    expect(sizes).toEqual([12, 32])
    expect(
      await code(service(undefined, { randomBytes: () => new Uint8Array(3) }).issue({ ownerId: 'a' })),
    ).toBe('api_key.generation_failed')
    const throwing = service(undefined, {
      randomBytes: () => {
        throw new Error('entropy exhausted')
      },
    })
    expect(await code(throwing.issue({ ownerId: 'a' }))).toBe('api_key.generation_failed')
  })

  it('validates owners, expiry and restrictions before storing anything', async () => {
    expect(await code(service().issue({ ownerId: ' ' }))).toBe('api_key.invalid_input')
    expect(await code(service().issue({ ownerId: 'a', expiresAt: new Date(now) }))).toBe(
      'api_key.invalid_input',
    )
    expect(await code(service().issue({ ownerId: 'a', restrictions: { scopes: [''] } }))).toBe(
      'api_key.invalid_record',
    )
    expect(await code(service().issue({ ownerId: 'a', restrictions: { tenants: { ' ': ['admin'] } } }))).toBe(
      'api_key.invalid_record',
    )
    expect(await code(service().issue({ ownerId: 'a', label: '' }))).toBe('api_key.invalid_record')
    expect(store.lookups).toBe(0)
  })

  it('refuses bad prefixes and short or malformed peppers at startup', () => {
    expect(() => service(undefined, { prefix: 'ac_me' })).toThrow(/prefix/)
    expect(() => service(undefined, { prefix: '' })).toThrow(/prefix/)
    expect(() => new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(31) })).toThrow(/32 bytes/)
    expect(() => new ApiKeyPepperRing(pepperV1, [pepperV1])).toThrow(/twice/)
    expect(() => new ApiKeyPepperRing({ version: 'v 1', secret: randomBytes(32) })).toThrow(/version/)
    const hex = randomBytes(32).toString('hex')
    expect(decodeApiKeyPepper('v1', hex, 'hex').secret).toHaveLength(32)
    expect(decodeApiKeyPepper('v1', randomBytes(32).toString('base64'), 'base64').secret).toHaveLength(32)
    expect(() => decodeApiKeyPepper('v1', `${hex}z`, 'hex')).toThrow(/not valid hex/)
    expect(() => decodeApiKeyPepper('v1', 'a b', 'base64url')).toThrow(/not valid/)
    expect(
      () => new ApiKeyPepperRing(decodeApiKeyPepper('v1', randomBytes(16).toString('hex'), 'hex')),
    ).toThrow(/32/)
  })

  it('keeps pepper material out of inspect and JSON', () => {
    const ring = new ApiKeyPepperRing(pepperV2, [pepperV1])
    for (const text of [inspect(ring), JSON.stringify(ring)]) {
      expect(text).toContain('v2')
      expect(text).not.toContain(pepperV2.secret.toString('hex'))
      expect(text).not.toContain(pepperV2.secret.toString('base64'))
    }
  })
})

describe('verifying API keys', () => {
  it('accepts the issued key with exactly one lookup, rejects a wrong secret for the same id', async () => {
    const keys = service()
    const issued = await keys.issue({ ownerId: 'svc' })
    expect((await keys.verify(issued.value)).kind).toBe('valid')
    expect(store.lookups).toBe(1)
    const other = randomBytes(32).toString('base64url')
    expect(await keys.verify(`${issued.value.slice(0, -43)}${other}`)).toEqual({
      kind: 'invalid',
      reason: 'api-key: digest mismatch',
    })
    expect(store.lookups).toBe(2)
  })

  it('keeps keys valid across pepper rotation until they are rotated, then drops the old version', async () => {
    const old = await service(new ApiKeyPepperRing(pepperV1)).issue({ ownerId: 'svc' })
    const rotatedRing = new ApiKeyPepperRing(pepperV2, [pepperV1])
    const keys = service(rotatedRing)
    expect((await keys.verify(old.value)).kind).toBe('valid')
    const fresh = await keys.issue({ ownerId: 'svc' })
    expect((await store.inner.get(fresh.keyId))?.pepperVersion).toBe('v2')
    const replacement = await keys.rotate(old.keyId)
    expect((await store.inner.get(replacement.keyId))?.pepperVersion).toBe('v2')
    const withoutV1 = service(new ApiKeyPepperRing(pepperV2))
    expect((await withoutV1.verify(replacement.value)).kind).toBe('valid')
    // A key still on a dropped version no longer verifies.
    const stranded = await service(new ApiKeyPepperRing(pepperV1)).issue({ ownerId: 'svc' })
    expect(await withoutV1.verify(stranded.value)).toEqual({
      kind: 'invalid',
      reason: 'api-key: retired pepper version',
    })
  })

  it('answers unavailable when the store is down, and unknown ids as invalid', async () => {
    const keys = service()
    const issued = await keys.issue({ ownerId: 'svc' })
    store.down = true
    expect((await keys.verify(issued.value)).kind).toBe('unavailable')
    store.down = false
    await store.inner.revoke(issued.keyId, new Date(now))
    const unknown = `acme_${randomBytes(12).toString('base64url')}_${randomBytes(32).toString('base64url')}`
    expect(await keys.verify(unknown)).toEqual({ kind: 'invalid', reason: 'api-key: unknown key' })
  })
})

describe('the digest memo', () => {
  function countingRing(ring = new ApiKeyPepperRing(pepperV1)) {
    const counter = { digests: 0 }
    const digest = ring.digest.bind(ring)
    ring.digest = (...args: Parameters<ApiKeyPepperRing['digest']>) => {
      counter.digests += 1
      return digest(...args)
    }
    return { ring, counter }
  }

  it('digests a key in use once, yet reads the store on every request so revocation applies at once', async () => {
    const { ring, counter } = countingRing()
    const keys = service(ring)
    const issued = await keys.issue({ ownerId: 'svc' })
    const issuing = counter.digests
    for (let i = 0; i < 5; i++) expect((await keys.verify(issued.value)).kind).toBe('valid')
    expect(counter.digests - issuing).toBe(1)
    expect(store.lookups).toBe(5)
    await keys.revoke(issued.keyId)
    now += 1
    expect(await keys.verify(issued.value)).toEqual({ kind: 'invalid', reason: 'api-key: revoked' })
    expect(store.lookups).toBe(6)
  })

  it('never memoizes a failure: a wrong secret for a memoized id is digested and refused every time', async () => {
    const { ring, counter } = countingRing()
    const keys = service(ring)
    const issued = await keys.issue({ ownerId: 'svc' })
    await keys.verify(issued.value)
    const before = counter.digests
    const forged = `${issued.value.slice(0, -43)}${randomBytes(32).toString('base64url')}`
    for (let i = 0; i < 3; i++) expect((await keys.verify(forged)).kind).toBe('invalid')
    expect(counter.digests - before).toBe(3)
    expect((await keys.verify(issued.value)).kind).toBe('valid')
    expect(counter.digests - before).toBe(3)
  })

  it('refuses a remembered key once its stored digest changed, one byte or all of them', async () => {
    const keys = service()
    const issued = await keys.issue({ ownerId: 'svc' })
    expect((await keys.verify(issued.value)).kind).toBe('valid')
    for (const position of [0, 17, 31]) {
      store.rewrite = (record) => {
        const digest = new Uint8Array(record.digest)
        digest[position] = (digest[position] as number) ^ 0x01
        return { ...record, digest }
      }
      expect(await keys.verify(issued.value)).toEqual({ kind: 'invalid', reason: 'api-key: digest mismatch' })
    }
    store.rewrite = (record) => ({ ...record, digest: new Uint8Array(32) })
    expect((await keys.verify(issued.value)).kind).toBe('invalid')
    store.rewrite = (record) => ({ ...record, digest: record.digest.subarray(0, 16) })
    expect((await keys.verify(issued.value)).kind).toBe('invalid')
    store.rewrite = undefined
    expect((await keys.verify(issued.value)).kind).toBe('valid')
  })

  it('forgets entries after maxTtlSeconds, and digests every time when turned off', async () => {
    const { ring, counter } = countingRing()
    const keys = service(ring, { digestMemo: { maxTtlSeconds: 60 } })
    const issued = await keys.issue({ ownerId: 'svc' })
    await keys.verify(issued.value)
    await keys.verify(issued.value)
    const afterTwo = counter.digests
    now += 60_000
    await keys.verify(issued.value)
    expect(counter.digests - afterTwo).toBe(1)
    const off = countingRing()
    const plain = service(off.ring, { digestMemo: false })
    const other = await plain.issue({ ownerId: 'svc' })
    const start = off.counter.digests
    for (let i = 0; i < 3; i++) expect((await plain.verify(other.value)).kind).toBe('valid')
    expect(off.counter.digests - start).toBe(3)
  })

  it('keeps keys out of inspect output and refuses bad memo bounds at startup', async () => {
    const keys = service()
    const issued = await keys.issue({ ownerId: 'svc' })
    await keys.verify(issued.value)
    expect(inspect(keys, { depth: 10, showHidden: true })).not.toContain(issued.value.slice(-43))
    for (const digestMemo of [
      { maxEntries: 0 },
      { maxEntries: 1.5 },
      { maxTtlSeconds: 0 },
      { maxTtlSeconds: 7200 },
    ]) {
      expect(() => service(undefined, { digestMemo })).toThrow(/digestMemo/)
    }
  })
})

describe('synchronous verification', () => {
  // The plain memory store (synchronous `get`), not the instrumented one the other tests use.
  const overMemoryStore = () => {
    const memory = new MemoryApiKeyStore()
    const keys = new ApiKeyService({
      store: memory,
      peppers: new ApiKeyPepperRing(pepperV1),
      clock: () => now,
    })
    return { memory, keys }
  }

  it('answers without a promise when the store answers synchronously', async () => {
    const { keys } = overMemoryStore()
    const issued = await keys.issue({ ownerId: 'svc' })
    const result = keys.verify(issued.value)
    expect(result).not.toBeInstanceOf(Promise)
    expect(result).toMatchObject({ kind: 'valid', record: { keyId: issued.keyId } })
    expect(keys.verify('pk_garbage')).toEqual({ kind: 'malformed' })
  })

  it('waits for a store answering with a foreign thenable', async () => {
    const { memory, keys } = overMemoryStore()
    const issued = await keys.issue({ ownerId: 'svc' })
    const get = memory.get.bind(memory)
    // biome-ignore lint/suspicious/noThenProperty: a foreign thenable is what this store answers
    memory.get = (keyId: string) => ({ then: (ok: (value: unknown) => void) => ok(get(keyId)) }) as never
    expect(await keys.verify(issued.value)).toMatchObject({ kind: 'valid', record: { keyId: issued.keyId } })
  })

  it('treats a store that throws synchronously as unavailable', () => {
    const broken = new MemoryApiKeyStore()
    broken.get = () => {
      throw new Error('connection refused')
    }
    const keys = new ApiKeyService({ store: broken, peppers: new ApiKeyPepperRing(pepperV1) })
    const value = `pk_${randomBytes(12).toString('base64url')}_${randomBytes(32).toString('base64url')}`
    expect(keys.verify(value)).toEqual({ kind: 'unavailable', reason: 'api-key: store unavailable' })
  })

  it("passes on the store's Retry-After hint, synchronously and asynchronously, and ignores a bad one", async () => {
    const value = `pk_${randomBytes(12).toString('base64url')}_${randomBytes(32).toString('base64url')}`
    const failing = (retryAfterSeconds: unknown, async: boolean) => {
      const error = Object.assign(new Error('database down'), { retryAfterSeconds })
      const broken: ApiKeyStore = Object.assign(new MemoryApiKeyStore(), {
        get: () => {
          if (async) return Promise.reject(error)
          throw error
        },
      })
      return new ApiKeyService({ store: broken, peppers: new ApiKeyPepperRing(pepperV1) })
    }
    const down = { kind: 'unavailable', reason: 'api-key: store unavailable' }
    expect(failing(2, false).verify(value)).toEqual({ ...down, retryAfterSeconds: 2 })
    expect(await failing(5, true).verify(value)).toEqual({ ...down, retryAfterSeconds: 5 })
    for (const bad of [-1, Number.NaN, '2', undefined])
      expect(await failing(bad, true).verify(value)).toEqual(down)
  })
})

describe('expiry, rotation and revocation', () => {
  it('follows the boundary truth table: expiry exclusive, revocation exclusive, overlap inclusive', async () => {
    const keys = service()
    const issued = await keys.issue({ ownerId: 'svc', expiresAt: new Date(now + 10_000) })
    const at = async (offset: number) => {
      const saved = now
      now += offset
      const result = (await keys.verify(issued.value)).kind
      now = saved
      return result
    }
    expect(await at(9999)).toBe('valid')
    expect(await at(10_000)).toBe('invalid')

    const replacement = await keys.rotate(issued.keyId, { overlapSeconds: 5 })
    expect(await at(0)).toBe('valid') // overlap starts at the rotation
    expect(await at(5000)).toBe('valid') // inclusive end
    expect(await at(5001)).toBe('invalid')
    expect((await keys.verify(replacement.value)).kind).toBe('valid')
    const record = (await store.inner.get(issued.keyId)) as ApiKeyRecord
    expect(apiKeyStatus(record, now)).toBe('overlap')
    expect(apiKeyStatus(record, now + 5001)).toBe('revoked')
  })

  it('clamps the overlap to the old key expiry and kills the old key at once without overlap', async () => {
    const keys = service()
    const short = await keys.issue({ ownerId: 'svc', expiresAt: new Date(now + 3000) })
    await keys.rotate(short.keyId, { overlapSeconds: 3600 })
    expect((await store.inner.get(short.keyId))?.overlapUntil).toEqual(new Date(now + 3000))
    const plain = await keys.issue({ ownerId: 'svc' })
    await keys.rotate(plain.keyId)
    expect((await keys.verify(plain.value)).kind).toBe('invalid')
  })

  it('gives the replacement the same owner, restrictions and lifetime by default', async () => {
    const keys = service()
    const issued = await keys.issue({
      ownerId: 'svc',
      ownerKind: 'user',
      restrictions: { roles: ['viewer'] },
      expiresAt: new Date(now + 86_400_000),
      label: 'CI',
    })
    now += 1000
    const replacement = await keys.rotate(issued.keyId)
    expect(await store.inner.get(replacement.keyId)).toMatchObject({
      ownerId: 'svc',
      ownerKind: 'user',
      restrictions: { roles: ['viewer'] },
      expiresAt: new Date(now + 86_400_000),
      label: 'CI',
    })
  })

  it('lets exactly one of many concurrent rotations win', async () => {
    const keys = service()
    const issued = await keys.issue({ ownerId: 'svc' })
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => keys.rotate(issued.keyId, { overlapSeconds: 60 })),
    )
    const winners = results.filter((result) => result.status === 'fulfilled')
    expect(winners).toHaveLength(1)
    for (const result of results) {
      if (result.status === 'rejected')
        expect(isPortcullisError(result.reason) && result.reason.code).toBe('api_key.not_active')
    }
    const winner = winners[0]
    expect(winner?.status === 'fulfilled' && (await keys.verify(winner.value.value)).kind).toBe('valid')
  })

  it('refuses to rotate revoked, expired or unknown keys and bad overlaps', async () => {
    const keys = service()
    const issued = await keys.issue({ ownerId: 'svc', expiresAt: new Date(now + 1000) })
    expect(await code(keys.rotate(issued.keyId, { overlapSeconds: -1 }))).toBe('api_key.invalid_input')
    expect(await code(keys.rotate(issued.keyId, { overlapSeconds: 8 * 86_400 }))).toBe(
      'api_key.invalid_input',
    )
    expect(await code(keys.rotate('not-an-id'))).toBe('api_key.not_found')
    expect(await code(keys.rotate(randomBytes(12).toString('base64url')))).toBe('api_key.not_found')
    now += 1000
    expect(await code(keys.rotate(issued.keyId, { expiresAt: new Date(now + 5000) }))).toBe(
      'api_key.not_active',
    )
    const revoked = await keys.issue({ ownerId: 'svc' })
    await keys.revoke(revoked.keyId)
    expect(await code(keys.rotate(revoked.keyId))).toBe('api_key.not_active')
  })

  it('revocation ends an overlap immediately and is idempotent', async () => {
    const keys = service()
    const issued = await keys.issue({ ownerId: 'svc' })
    await keys.rotate(issued.keyId, { overlapSeconds: 600 })
    expect((await keys.verify(issued.value)).kind).toBe('valid')
    await keys.revoke(issued.keyId)
    await keys.revoke(issued.keyId)
    expect((await keys.verify(issued.value)).kind).toBe('invalid')
    expect(await code(keys.revoke(randomBytes(12).toString('base64url')))).toBe('api_key.not_found')
  })
})
