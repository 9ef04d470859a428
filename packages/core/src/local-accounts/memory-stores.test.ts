import { createHash, randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { MemoryRateLimitStore } from './rate-limits/memory-rate-limit-store.js'
import { MemorySessionStore } from './sessions/memory-session-store.js'
import type { SessionRecord } from './sessions/session-store.js'
import { MemoryRefreshTokenStore } from './tokens/memory-refresh-token-store.js'

const T0 = new Date('2031-03-04T05:06:07.000Z')
const at = (ms: number) => new Date(T0.getTime() + ms)
const digest = () => createHash('sha256').update(randomBytes(32)).digest('hex')
const handle = () => randomBytes(16).toString('base64url')

function session(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    digest: digest(),
    handle: handle(),
    accountId: 'account-1',
    securityEpoch: 1,
    createdAt: T0,
    lastSeenAt: T0,
    idleExpiresAt: at(60_000),
    absoluteExpiresAt: at(3_600_000),
    ...overrides,
  }
}

describe('MemorySessionStore', () => {
  it('returns copies: mutating a returned session changes nothing stored', async () => {
    const store = new MemorySessionStore()
    const saved = session()
    await store.create({ session: saved })
    const got = await store.get(saved.digest, T0)
    got?.idleExpiresAt.setTime(0)
    expect((await store.get(saved.digest, T0))?.idleExpiresAt).toEqual(at(60_000))
  })

  it('drops expired sessions once it has doubled in size, keeping live ones', async () => {
    const store = new MemorySessionStore()
    const expired = Array.from({ length: 1023 }, () =>
      session({ idleExpiresAt: at(1), absoluteExpiresAt: at(1) }),
    )
    for (const each of expired) await store.create({ session: each })
    expect(inspect(store)).toBe('MemorySessionStore { sessions: 1023 }')
    const live = session({ createdAt: at(10), lastSeenAt: at(10) })
    await store.create({ session: live })
    expect(inspect(store)).toBe('MemorySessionStore { sessions: 1 }')
    expect(await store.get(live.digest, at(10))).not.toBeNull()
  })
})

describe('MemoryRefreshTokenStore', () => {
  it('drops ended families with their tokens once it has doubled in size', async () => {
    const store = new MemoryRefreshTokenStore()
    for (let index = 0; index < 1023; index += 1) {
      await store.createFamily({
        familyId: `old-${index}`,
        accountId: 'account-1',
        securityEpoch: 1,
        createdAt: T0,
        absoluteExpiresAt: at(1000),
        token: { digest: digest(), expiresAt: at(1000) },
      })
    }
    const token = digest()
    await store.createFamily({
      familyId: 'live',
      accountId: 'account-1',
      securityEpoch: 1,
      createdAt: at(1000),
      absoluteExpiresAt: at(10_000),
      token: { digest: token, expiresAt: at(10_000) },
    })
    expect(inspect(store)).toBe('MemoryRefreshTokenStore { families: 1, tokens: 1 }')
    const next = digest()
    const rotated = await store.rotate({
      presentedDigest: token,
      next: { digest: next, expiresAt: at(9000) },
      now: at(2000),
    })
    expect(rotated.outcome).toBe('rotated')
  })
})

describe('MemoryRateLimitStore', () => {
  const consume = (store: MemoryRateLimitStore, key: string, now: Date) =>
    store.consume({ key, limit: 5, windowSeconds: 60, now })

  it('makes room by dropping ended windows, and refuses a new key while every window runs', async () => {
    const store = new MemoryRateLimitStore({ capacity: 2 })
    await consume(store, 'a', T0)
    await consume(store, 'b', at(30_000))
    await expect(consume(store, 'c', at(59_999))).rejects.toMatchObject({
      code: 'local.store_full',
      errorClass: 'unavailable',
    })
    expect((await consume(store, 'a', at(59_999))).count).toBe(2)
    expect((await consume(store, 'c', at(60_000))).count).toBe(1)
    expect(inspect(store)).toBe('MemoryRateLimitStore { keys: 2 }')
    await store.reset('b')
    expect((await consume(store, 'd', at(60_001))).count).toBe(1)
  })

  it('refuses a bad capacity and unknown options at construction', () => {
    expect(() => new MemoryRateLimitStore({ capacity: 0 })).toThrow(
      expect.objectContaining({ errorClass: 'configuration' }),
    )
    expect(() => new MemoryRateLimitStore({ capacty: 5 } as never)).toThrow(
      expect.objectContaining({ errorClass: 'configuration' }),
    )
  })
})
