import { createHash } from 'node:crypto'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { MemoryStepUpStore } from './memory-store.js'
import { StepUpService } from './service.js'
import type { StepUpRecord, StepUpStore } from './store.js'

const T0 = new Date('2031-03-04T05:06:07Z')
const BINDING = {
  accountId: 'account-1',
  purpose: 'oauth-link',
  securityEpoch: 4,
  sessionBinding: 'session-abc',
}

/** The real memory store, with every call recorded so tests can see what the store was given. */
class RecordingStore implements StepUpStore {
  readonly inner = new MemoryStepUpStore()
  readonly saved: StepUpRecord[] = []
  takes = 0
  failing = false

  async save(record: StepUpRecord): Promise<void> {
    if (this.failing) throw new Error('database down')
    this.saved.push(record)
    return this.inner.save(record)
  }

  async take(digest: string): Promise<StepUpRecord | null> {
    this.takes += 1
    if (this.failing) throw new Error('database down')
    return this.inner.take(digest)
  }

  purgeExpired(now: Date): Promise<number> {
    return this.inner.purgeExpired(now)
  }
}

function setup(options: { ttlSeconds?: number; randomBytes?: (size: number) => Uint8Array } = {}) {
  const store = new RecordingStore()
  let now = T0
  const service = new StepUpService({ store, clock: () => now, ...options })
  return {
    store,
    service,
    setNow: (next: Date) => {
      now = next
    },
  }
}

describe('StepUpService.issue', () => {
  it('issues a 256-bit opaque token, stores only digests, and expires after 5 minutes by default', async () => {
    const { service, store } = setup()
    const credential = await service.issue(BINDING)
    const token = credential.reveal()
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(credential.purpose).toBe('oauth-link')
    expect(credential.expiresAt.getTime()).toBe(T0.getTime() + 300_000)
    const [record] = store.saved
    expect(record?.digest).toBe(createHash('sha256').update(token).digest('base64url'))
    expect(record?.sessionDigest).not.toContain('session-abc')
    expect(JSON.stringify(store.saved)).not.toContain(token)
    expect(record).toMatchObject({ accountId: 'account-1', purpose: 'oauth-link', securityEpoch: 4 })
  })

  it('never shows the token in inspect, JSON or string form', async () => {
    const { service } = setup()
    const credential = await service.issue(BINDING)
    for (const rendering of [
      inspect(credential, { showHidden: true }),
      JSON.stringify(credential),
      String(credential),
    ]) {
      expect(rendering).not.toContain(credential.reveal())
      expect(rendering).toContain('oauth-link')
    }
  })

  it('allows a TTL up to 15 minutes and refuses more, zero or fractions at construction', () => {
    const store = new MemoryStepUpStore()
    expect(new StepUpService({ store, ttlSeconds: 900 }).ttlSeconds).toBe(900)
    for (const ttlSeconds of [901, 0, -1, 1.5, Number.NaN]) {
      expect(() => new StepUpService({ store, ttlSeconds })).toThrow(
        expect.objectContaining({ code: 'step-up.ttl', errorClass: 'configuration' }),
      )
    }
  })

  it('takes a shorter per-credential TTL but never a longer one', async () => {
    const { service } = setup({ ttlSeconds: 600 })
    expect((await service.issue({ ...BINDING, ttlSeconds: 60 })).expiresAt.getTime()).toBe(
      T0.getTime() + 60_000,
    )
    await expect(service.issue({ ...BINDING, ttlSeconds: 601 })).rejects.toMatchObject({
      code: 'step-up.invalid_input',
    })
  })

  it.each([
    ['blank account', { accountId: '  ' }],
    ['padded account', { accountId: ' account-1' }],
    ['purpose starting with a dot', { purpose: '.oauth-link' }],
    ['purpose with a space', { purpose: 'oauth link' }],
    ['empty purpose', { purpose: '' }],
    ['129-character purpose', { purpose: 'p'.repeat(129) }],
    ['negative epoch', { securityEpoch: -1 }],
    ['fractional epoch', { securityEpoch: 1.5 }],
    ['unsafe epoch', { securityEpoch: 2 ** 53 }],
    ['blank session binding', { sessionBinding: ' ' }],
    ['authentication in the future', { authenticatedAt: new Date(T0.getTime() + 1) }],
    ['authentication older than the TTL', { authenticatedAt: new Date(T0.getTime() - 300_001) }],
    ['invalid authentication date', { authenticatedAt: new Date(Number.NaN) }],
  ])('refuses %s with a typed error and stores nothing', async (_label, overrides) => {
    const { service, store } = setup()
    await expect(service.issue({ ...BINDING, ...overrides })).rejects.toMatchObject({
      code: 'step-up.invalid_input',
      errorClass: 'invalid-input',
    })
    expect(store.saved).toHaveLength(0)
  })

  it('reports short or failing randomness and store failures as unavailable', async () => {
    const short = setup({ randomBytes: () => new Uint8Array(31) })
    await expect(short.service.issue(BINDING)).rejects.toMatchObject({ code: 'step-up.unavailable' })
    expect(short.store.saved).toHaveLength(0)
    const throwing = setup({
      randomBytes: () => {
        throw new Error('entropy exhausted')
      },
    })
    await expect(throwing.service.issue(BINDING)).rejects.toMatchObject({ code: 'step-up.unavailable' })
    const down = setup()
    down.store.failing = true
    await expect(down.service.issue(BINDING)).rejects.toMatchObject({
      code: 'step-up.unavailable',
      errorClass: 'unavailable',
    })
  })
})

describe('StepUpService.consume', () => {
  it('returns the grant once for the exact binding', async () => {
    const { service } = setup()
    const token = (await service.issue(BINDING)).reveal()
    const result = await service.consume({ ...BINDING, token })
    expect(result).toEqual({
      kind: 'consumed',
      grant: {
        accountId: 'account-1',
        purpose: 'oauth-link',
        securityEpoch: 4,
        issuedAt: T0,
        authenticatedAt: T0,
        expiresAt: new Date(T0.getTime() + 300_000),
      },
    })
    expect(await service.consume({ ...BINDING, token })).toEqual({ kind: 'rejected', reason: 'unknown' })
  })

  it('has exactly one winner among 32 concurrent redemptions', async () => {
    const { service } = setup()
    const token = (await service.issue(BINDING)).reveal()
    const results = await Promise.all(
      Array.from({ length: 32 }, () => service.consume({ ...BINDING, token })),
    )
    expect(results.filter((result) => result.kind === 'consumed')).toHaveLength(1)
  })

  it.each([
    ['account', { accountId: 'account-2' }],
    ['purpose', { purpose: 'oauth-unlink' }],
    ['epoch (password changed since)', { securityEpoch: 5 }],
    ['session', { sessionBinding: 'session-other' }],
  ])('rejects a wrong %s and burns the credential', async (_label, wrong) => {
    const { service } = setup()
    const token = (await service.issue(BINDING)).reveal()
    expect(await service.consume({ ...BINDING, ...wrong, token })).toEqual({
      kind: 'rejected',
      reason: 'binding-mismatch',
    })
    expect(await service.consume({ ...BINDING, token })).toEqual({ kind: 'rejected', reason: 'unknown' })
  })

  it('accepts until just before expiresAt and rejects at it', async () => {
    const { service, setNow } = setup()
    const [early, late] = [(await service.issue(BINDING)).reveal(), (await service.issue(BINDING)).reveal()]
    setNow(new Date(T0.getTime() + 299_999))
    expect((await service.consume({ ...BINDING, token: early })).kind).toBe('consumed')
    setNow(new Date(T0.getTime() + 300_000))
    expect(await service.consume({ ...BINDING, token: late })).toEqual({
      kind: 'rejected',
      reason: 'expired',
    })
  })

  it('rejects malformed tokens without touching the store', async () => {
    const { service, store } = setup()
    for (const token of ['', 'short', `${'a'.repeat(43)}=`, 'a'.repeat(44), `${'a'.repeat(42)}+`, 42]) {
      expect(await service.consume({ ...BINDING, token: token as string })).toEqual({
        kind: 'rejected',
        reason: 'malformed',
      })
    }
    expect(store.takes).toBe(0)
  })

  it('reports a failing store or clock as unavailable, not rejected', async () => {
    const { service, store, setNow } = setup()
    const token = (await service.issue(BINDING)).reveal()
    store.failing = true
    expect(await service.consume({ ...BINDING, token })).toMatchObject({ kind: 'unavailable' })
    store.failing = false
    setNow(new Date(Number.NaN))
    expect(await service.consume({ ...BINDING, token })).toMatchObject({ kind: 'unavailable' })
  })

  it('throws typed errors for a malformed server-side binding', async () => {
    const { service } = setup()
    const token = (await service.issue(BINDING)).reveal()
    await expect(service.consume({ ...BINDING, accountId: '', token })).rejects.toMatchObject({
      code: 'step-up.invalid_input',
    })
    expect((await service.consume({ ...BINDING, token })).kind).toBe('consumed')
  })
})
