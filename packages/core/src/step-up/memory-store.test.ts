import { createHash, randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { MemoryStepUpStore } from './memory-store.js'
import type { StepUpRecord } from './store.js'

const T0 = new Date('2031-03-04T05:06:07Z')
const digest = () => createHash('sha256').update(randomBytes(32)).digest('base64url')

function record(expiresInMs: number, overrides: Partial<StepUpRecord> = {}): StepUpRecord {
  return {
    digest: digest(),
    accountId: 'account-1',
    purpose: 'oauth-link',
    securityEpoch: 0,
    sessionDigest: digest(),
    issuedAt: T0,
    authenticatedAt: T0,
    expiresAt: new Date(T0.getTime() + expiresInMs),
    ...overrides,
  }
}

describe('MemoryStepUpStore', () => {
  it('makes room by purging expired records, and refuses when full of live ones', async () => {
    const store = new MemoryStepUpStore({ capacity: 2 })
    const stale = record(1000, { issuedAt: new Date(T0.getTime() - 10_000), expiresAt: T0 })
    const live = record(60_000)
    await store.save(stale)
    await store.save(live)
    const next = record(60_000)
    await store.save(next)
    expect(await store.take(stale.digest)).toBeNull()
    await expect(store.save(record(60_000))).rejects.toMatchObject({ code: 'step-up.unavailable' })
    expect(await store.take(live.digest)).not.toBeNull()
    expect(await store.take(next.digest)).not.toBeNull()
  })

  it('keeps its own copy: mutating the saved object changes nothing stored', async () => {
    const store = new MemoryStepUpStore()
    const saved = record(60_000)
    await store.save(saved)
    saved.expiresAt.setTime(0)
    expect((await store.take(saved.digest))?.expiresAt.getTime()).toBe(T0.getTime() + 60_000)
  })

  it.each([
    ['a raw token instead of a digest', { digest: 'not-a-digest' }],
    ['an expiry before issue', { expiresAt: new Date(T0.getTime() - 1) }],
    ['an invalid date', { issuedAt: new Date(Number.NaN) }],
    ['a negative epoch', { securityEpoch: -1 }],
    ['a malformed purpose', { purpose: 'not a purpose' }],
  ])('refuses a record with %s', async (_label, overrides) => {
    const store = new MemoryStepUpStore()
    await expect(store.save(record(60_000, overrides))).rejects.toMatchObject({
      code: 'step-up.invalid_input',
    })
  })

  it('refuses an invalid capacity and a malformed digest lookup', async () => {
    expect(() => new MemoryStepUpStore({ capacity: 0 })).toThrow(
      expect.objectContaining({ errorClass: 'configuration' }),
    )
    await expect(new MemoryStepUpStore().take('x')).rejects.toMatchObject({ code: 'step-up.invalid_input' })
  })

  it('inspects as a count only', async () => {
    const store = new MemoryStepUpStore()
    const saved = record(60_000)
    await store.save(saved)
    expect(inspect(store)).toBe('MemoryStepUpStore { records: 1 }')
  })
})
