import { randomBytes } from 'node:crypto'
import { beforeEach, describe, expect, it } from 'vitest'
import { InstrumentedApiKeyStore } from '../../test/support/api-key-store.js'
import { MemoryRevocationNotices } from '../revocation/memory-revocation-notices.js'
import type { RevocationNotices, RevocationSubscriber } from '../revocation/revocation-notices.js'
import { ApiKeyPepperRing } from './api-key-pepper.js'
import { ApiKeyService, type ApiKeyServiceOptions } from './api-key-service.js'
import { MemoryApiKeyStore } from './memory-api-key-store.js'

const peppers = new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) })
let now: number

/** Memory notices whose trust the test switches off and on (a dropped and restored listener). */
class SwitchableNotices implements RevocationNotices {
  readonly inner = new MemoryRevocationNotices()
  readonly subscribers: RevocationSubscriber[] = []
  up = true
  trusted = () => this.up
  subscribe(subscriber: RevocationSubscriber) {
    this.subscribers.push(subscriber)
    return this.inner.subscribe(subscriber)
  }
  publish(notice: Parameters<RevocationNotices['publish']>[0]) {
    return this.up ? this.inner.publish(notice) : Promise.resolve()
  }
  reconnect() {
    for (const subscriber of this.subscribers) subscriber.flush()
    this.up = true
  }
}

/** Two instances (services) over one memory store and one notice bus; each counts its own store reads. */
function twoInstances(notices: RevocationNotices, extra: Partial<ApiKeyServiceOptions> = {}) {
  const shared = new MemoryApiKeyStore({ notices })
  const storeA = new InstrumentedApiKeyStore(shared)
  const storeB = new InstrumentedApiKeyStore(shared)
  const make = (store: InstrumentedApiKeyStore) =>
    new ApiKeyService({ store, peppers, prefix: 'acme', clock: () => now, notices, ...extra })
  return { a: make(storeA), b: make(storeB), storeA, storeB }
}

beforeEach(() => {
  now = Date.UTC(2030, 0, 1)
})

describe('the API-key verified-lookup cache', () => {
  it('answers a key that verified without reading the store again', async () => {
    const { a, b, storeB } = twoInstances(new MemoryRevocationNotices())
    const issued = await a.issue({ ownerId: 'svc' })
    expect((await b.verify(issued.value)).kind).toBe('valid')
    for (let index = 0; index < 5; index += 1) expect((await b.verify(issued.value)).kind).toBe('valid')
    expect(storeB.lookups).toBe(1)
    expect(b.cachedLookups).toBe(1)
  })

  it('refuses a key revoked on another instance at once', async () => {
    const { a, b } = twoInstances(new MemoryRevocationNotices())
    const issued = await a.issue({ ownerId: 'svc' })
    expect((await b.verify(issued.value)).kind).toBe('valid')
    await a.revoke(issued.keyId)
    expect(await b.verify(issued.value)).toEqual({ kind: 'invalid', reason: 'api-key: revoked' })
  })

  it('refuses a key rotated out on another instance at once, and honours the overlap of a rotation', async () => {
    const { a, b } = twoInstances(new MemoryRevocationNotices())
    const first = await a.issue({ ownerId: 'svc' })
    const second = await a.issue({ ownerId: 'svc' })
    expect((await b.verify(first.value)).kind).toBe('valid')
    expect((await b.verify(second.value)).kind).toBe('valid')
    await a.rotate(first.keyId)
    expect((await b.verify(first.value)).kind).toBe('invalid')
    await a.rotate(second.keyId, { overlapSeconds: 60 })
    expect((await b.verify(second.value)).kind).toBe('valid')
    now += 61_000
    expect((await b.verify(second.value)).kind).toBe('invalid')
  })

  it('checks expiry on every hit', async () => {
    const { a, b, storeB } = twoInstances(new MemoryRevocationNotices())
    const issued = await a.issue({ ownerId: 'svc', expiresAt: new Date(now + 10_000) })
    expect((await b.verify(issued.value)).kind).toBe('valid')
    now += 10_000
    expect(await b.verify(issued.value)).toEqual({ kind: 'invalid', reason: 'api-key: expired' })
    expect(storeB.lookups).toBe(1)
  })

  it('keeps successes only: a wrong secret for a cached key reads the store and is refused every time', async () => {
    const { a, b, storeB } = twoInstances(new MemoryRevocationNotices(), { lookupCache: { maxEntries: 1 } })
    const issued = await a.issue({ ownerId: 'svc' })
    expect((await b.verify(issued.value)).kind).toBe('valid')
    const forged = `${issued.value.slice(0, -4)}AAAA`
    for (let index = 0; index < 3; index += 1) expect((await b.verify(forged)).kind).toBe('invalid')
    expect(storeB.lookups).toBe(4)
    // The flood neither evicted nor replaced the good entry (the cache holds one entry here).
    expect((await b.verify(issued.value)).kind).toBe('valid')
    expect(storeB.lookups).toBe(4)
  })

  it('reads the store on every request without notices', async () => {
    const store = new InstrumentedApiKeyStore()
    const service = new ApiKeyService({ store, peppers, prefix: 'acme', clock: () => now })
    const issued = await service.issue({ ownerId: 'svc' })
    for (let index = 0; index < 3; index += 1) expect((await service.verify(issued.value)).kind).toBe('valid')
    expect(store.lookups).toBe(3)
    expect(service.cachedLookups).toBe(0)
  })

  it('reads the store on every request while the notices are not trusted, and forgets what it held when they return', async () => {
    const notices = new SwitchableNotices()
    const { a, b, storeB } = twoInstances(notices)
    const issued = await a.issue({ ownerId: 'svc' })
    expect((await b.verify(issued.value)).kind).toBe('valid')
    notices.up = false
    await a.revoke(issued.keyId) // its notice is lost
    expect((await b.verify(issued.value)).kind).toBe('invalid')
    expect(storeB.lookups).toBe(2)
    notices.reconnect()
    expect(b.cachedLookups).toBe(0)
    expect((await b.verify(issued.value)).kind).toBe('invalid')
  })

  it('lets no cached record be changed by a caller', async () => {
    const { a, b } = twoInstances(new MemoryRevocationNotices())
    const issued = await a.issue({ ownerId: 'svc', restrictions: { scopes: ['read'] } })
    await b.verify(issued.value)
    const hit = await b.verify(issued.value)
    if (hit.kind !== 'valid') throw new Error('expected valid')
    expect(() => {
      ;(hit.record.restrictions.scopes as string[]).push('admin')
    }).toThrow()
    expect(Object.isFrozen(hit.record)).toBe(true)
  })
})
