import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import type { SecurityEvent } from '@portcullis/core/local-accounts'
import { MemoryRateLimitStore } from '@portcullis/core/local-accounts'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import type { TotpStore } from '@portcullis/core/totp'
import { MemoryTotpStore } from '@portcullis/core/totp'
import { Secret } from 'otpauth'
import { beforeEach, describe, expect, it } from 'vitest'
import { totpCodeAt } from './one-time-code.js'
import { TotpService, type TotpServiceOptions } from './service.js'

const STEP = 30_000
// A time in the middle of a step, so +-1 step stays unambiguous.
const T0 = 1_900_000_000_000 - (1_900_000_000_000 % STEP) + 10_000
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('2031-03', randomBytes(32)),
})
const pepper = { version: 'p1', secret: randomBytes(32) }

interface Harness {
  readonly service: TotpService
  readonly events: SecurityEvent[]
  now: number
}

function harness(
  store: TotpStore,
  overrides: Partial<TotpServiceOptions> = {},
  rateLimits = new MemoryRateLimitStore(),
): Harness {
  const events: SecurityEvent[] = []
  const state = { now: T0 }
  const service = new TotpService({
    store,
    protector,
    rateLimits,
    recoveryCodePeppers: { active: pepper },
    issuer: 'Portcullis Test',
    clock: () => state.now,
    events: (event) => {
      events.push(event)
    },
    ...overrides,
  })
  return Object.defineProperties({ service, events } as unknown as Harness, {
    now: { get: () => state.now, set: (value: number) => (state.now = value) },
  })
}

async function enrolled(h: Harness, accountId = 'alice') {
  const start = await h.service.beginEnrollment({ accountId, label: 'alice@example.com' })
  const secret = Secret.fromBase32(start.revealSecret()).bytes
  const codes = await h.service.confirmEnrollment({ accountId, code: totpCodeAt(secret, h.now) })
  return { secret, codes: codes.reveal() }
}

describe('TOTP enrollment', () => {
  let h: Harness
  beforeEach(() => {
    h = harness(new MemoryTotpStore())
  })

  it('stays pending until a first valid code confirms it, then returns ten distinct recovery codes', async () => {
    const start = await h.service.beginEnrollment({ accountId: 'alice', label: 'alice' })
    expect(start.revealUri()).toMatch(/^otpauth:\/\/totp\/Portcullis%20Test:alice\?/)
    expect(start.revealUri()).toContain(`secret=${start.revealSecret()}`)
    const secret = Secret.fromBase32(start.revealSecret()).bytes
    const wrong = totpCodeAt(secret, T0 + 10 * STEP)
    await expect(h.service.confirmEnrollment({ accountId: 'alice', code: wrong })).rejects.toMatchObject({
      code: 'totp.invalid_code',
    })
    expect(await h.service.status('alice')).toEqual({ enabled: false, pending: true, recoveryCodes: 0 })
    const codes = await h.service.confirmEnrollment({ accountId: 'alice', code: totpCodeAt(secret, T0) })
    expect(new Set(codes.reveal()).size).toBe(10)
    for (const code of codes.reveal()) expect(code).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/)
    expect(await h.service.status('alice')).toEqual({ enabled: true, pending: false, recoveryCodes: 10 })
    expect(h.events.map((event) => event.type)).toEqual(['totp.failed', 'totp.verified', 'totp.enabled'])
  })

  it('the code that confirmed the enrollment cannot sign in again', async () => {
    const { secret } = await enrolled(h)
    await expect(
      h.service.verify({ accountId: 'alice', code: totpCodeAt(secret, T0) }),
    ).rejects.toMatchObject({
      code: 'totp.invalid_code',
    })
  })

  it('refuses a second enrollment while TOTP is enabled, and allows one after disabling', async () => {
    await enrolled(h)
    await expect(h.service.beginEnrollment({ accountId: 'alice', label: 'a' })).rejects.toMatchObject({
      code: 'totp.already_enabled',
    })
    expect(await h.service.disable({ accountId: 'alice' })).toBe(true)
    expect(await h.service.status('alice')).toEqual({ enabled: false, pending: false, recoveryCodes: 0 })
    await expect(h.service.beginEnrollment({ accountId: 'alice', label: 'a' })).resolves.toBeDefined()
  })

  it('a restarted enrollment replaces the pending secret: a code of the first one no longer confirms', async () => {
    const first = await h.service.beginEnrollment({ accountId: 'alice', label: 'a' })
    await h.service.beginEnrollment({ accountId: 'alice', label: 'a' })
    const stale = totpCodeAt(Secret.fromBase32(first.revealSecret()).bytes, T0)
    await expect(h.service.confirmEnrollment({ accountId: 'alice', code: stale })).rejects.toMatchObject({
      code: 'totp.invalid_code',
    })
  })

  it('keeps the secret sealed at rest and bound to its account', async () => {
    const store = new MemoryTotpStore()
    h = harness(store)
    const start = await h.service.beginEnrollment({ accountId: 'alice', label: 'a' })
    const stored = await store.getTotpEnrollment('alice')
    expect(stored?.sealedSecret).toMatch(/^pe1\.2031-03\./)
    expect(stored?.sealedSecret).not.toContain(start.revealSecret())
    const raw = Buffer.from(Secret.fromBase32(start.revealSecret()).bytes)
    expect(Buffer.from(stored?.sealedSecret ?? '', 'utf8').includes(raw)).toBe(false)
    // Mallory copies Alice's envelope onto her own pending enrollment: it does not open for her.
    await store.savePendingTotp({
      accountId: 'mallory',
      sealedSecret: stored?.sealedSecret ?? '',
      now: new Date(T0),
    })
    const code = totpCodeAt(Secret.fromBase32(start.revealSecret()).bytes, T0)
    await expect(h.service.confirmEnrollment({ accountId: 'mallory', code })).rejects.toMatchObject({
      code: 'totp.unavailable',
    })
  })

  it('never shows the secret, the URI or the recovery codes in inspect, JSON or String output', async () => {
    const start = await h.service.beginEnrollment({ accountId: 'alice', label: 'a' })
    for (const shown of [inspect(start), JSON.stringify(start), String(start)]) {
      expect(shown).not.toContain(start.revealSecret())
      expect(shown).toContain('[redacted]')
    }
    const codes = await h.service.confirmEnrollment({
      accountId: 'alice',
      code: totpCodeAt(Secret.fromBase32(start.revealSecret()).bytes, T0),
    })
    for (const shown of [
      inspect(codes),
      JSON.stringify(codes),
      String(codes),
      inspect(h.events, { depth: 5 }),
    ]) {
      for (const code of codes.reveal()) expect(shown).not.toContain(code)
    }
    expect(inspect(h.service)).not.toContain(pepper.secret.toString('hex'))
  })
})

describe('TOTP verification', () => {
  let h: Harness
  let secret: Uint8Array
  beforeEach(async () => {
    h = harness(new MemoryTotpStore())
    ;({ secret } = await enrolled(h))
    h.now = T0 + 5 * STEP
  })

  it('accepts the codes of the previous, current and next step and refuses two steps away', async () => {
    for (const offset of [-2, 2]) {
      await expect(
        h.service.verify({ accountId: 'alice', code: totpCodeAt(secret, h.now + offset * STEP) }),
      ).rejects.toMatchObject({ code: 'totp.invalid_code' })
    }
    for (const offset of [-1, 0, 1]) {
      h.now += 3 * STEP
      await h.service.verify({ accountId: 'alice', code: totpCodeAt(secret, h.now + offset * STEP) })
    }
  })

  it('moves the window at the exact step boundary', async () => {
    const boundary = h.now - (h.now % STEP) + STEP
    const twoBack = totpCodeAt(secret, boundary - 2 * STEP)
    h.now = boundary - 1
    await h.service.verify({ accountId: 'alice', code: twoBack })
    const threeBack = totpCodeAt(secret, boundary - 2 * STEP - STEP)
    h.now = boundary
    await expect(h.service.verify({ accountId: 'alice', code: threeBack })).rejects.toMatchObject({
      code: 'totp.invalid_code',
    })
  })

  it('refuses a code presented again within its window, and an older code after a newer one', async () => {
    const current = totpCodeAt(secret, h.now)
    await h.service.verify({ accountId: 'alice', code: current })
    await expect(h.service.verify({ accountId: 'alice', code: current })).rejects.toMatchObject({
      code: 'totp.invalid_code',
    })
    await expect(
      h.service.verify({ accountId: 'alice', code: totpCodeAt(secret, h.now - STEP) }),
    ).rejects.toMatchObject({ code: 'totp.invalid_code' })
    expect(h.events.filter((event) => event.type === 'totp.failed').map((event) => event.reason)).toEqual([
      'replayed',
      'replayed',
    ])
  })

  it('refuses a replay on another instance sharing the store, and lets one of 20 concurrent uses win', async () => {
    const store = new MemoryTotpStore()
    const one = harness(store)
    const { secret: shared } = await enrolled(one)
    const two = harness(store)
    one.now = T0 + 3 * STEP
    two.now = one.now
    const code = totpCodeAt(shared, one.now)
    await one.service.verify({ accountId: 'alice', code })
    await expect(two.service.verify({ accountId: 'alice', code })).rejects.toMatchObject({
      code: 'totp.invalid_code',
    })
    one.now += 2 * STEP
    two.now = one.now
    const next = totpCodeAt(shared, one.now)
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        (index % 2 === 0 ? one : two).service.verify({ accountId: 'alice', code: next }),
      ),
    )
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
  })

  it('locks the account out after five attempts, even for the right code, until the window ends', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await expect(h.service.verify({ accountId: 'alice', code: '000000' })).rejects.toMatchObject({
        code: expect.stringMatching(/^totp\.invalid_code$/),
      })
    }
    const right = totpCodeAt(secret, h.now)
    const refused = await h.service
      .verify({ accountId: 'alice', code: right })
      .catch((error: unknown) => error)
    expect(refused).toMatchObject({ code: 'totp.rate_limited', retryAfterSeconds: 300 })
    expect(h.events.at(-1)).toMatchObject({ type: 'totp.rate_limited', accountId: 'alice' })
    h.now += 300_000
    await h.service.verify({ accountId: 'alice', code: totpCodeAt(secret, h.now) })
  })

  it('refuses malformed codes with the same answer as wrong ones', async () => {
    for (const code of ['12345', '1234567', 'abcdef', 123456, ' '.repeat(40)]) {
      await expect(h.service.verify({ accountId: 'alice', code })).rejects.toMatchObject({
        code: 'totp.invalid_code',
      })
    }
  })

  it('answers totp.not_enrolled for an account without TOTP', async () => {
    await expect(h.service.verify({ accountId: 'bob', code: '123456' })).rejects.toMatchObject({
      code: 'totp.not_enrolled',
    })
  })
})

describe('recovery codes', () => {
  let h: Harness
  let codes: readonly string[]
  beforeEach(async () => {
    h = harness(new MemoryTotpStore())
    ;({ codes } = await enrolled(h))
  })

  it('each code works once, typed in any case and with or without dashes', async () => {
    const [first, second] = codes as [string, string]
    expect(await h.service.redeemRecoveryCode({ accountId: 'alice', code: first })).toBe(9)
    await expect(h.service.redeemRecoveryCode({ accountId: 'alice', code: first })).rejects.toMatchObject({
      code: 'totp.invalid_recovery_code',
    })
    expect(
      await h.service.redeemRecoveryCode({
        accountId: 'alice',
        code: second.toUpperCase().replace(/-/g, ' '),
      }),
    ).toBe(8)
    expect(h.events.filter((event) => event.type === 'recovery_code.used')).toHaveLength(2)
  })

  it("refuses another account's code", async () => {
    await enrolled(h, 'bob')
    await expect(h.service.redeemRecoveryCode({ accountId: 'bob', code: codes[0] })).rejects.toMatchObject({
      code: 'totp.invalid_recovery_code',
    })
  })

  it('regenerating revokes the whole old set at once', async () => {
    const fresh = await h.service.regenerateRecoveryCodes({ accountId: 'alice' })
    for (const old of codes.slice(0, 3)) {
      await expect(h.service.redeemRecoveryCode({ accountId: 'alice', code: old })).rejects.toMatchObject({
        code: 'totp.invalid_recovery_code',
      })
    }
    h.now += 300_000
    expect(await h.service.redeemRecoveryCode({ accountId: 'alice', code: fresh.reveal()[0] })).toBe(9)
  })

  it('a code made under a retained pepper still redeems after the pepper rotated', async () => {
    const store = new MemoryTotpStore()
    const before = harness(store)
    const { codes: old } = await enrolled(before)
    const after = harness(store, {
      recoveryCodePeppers: { active: { version: 'p2', secret: randomBytes(32) }, retained: [pepper] },
    })
    expect(await after.service.redeemRecoveryCode({ accountId: 'alice', code: old[0] })).toBe(9)
    const dropped = harness(store, {
      recoveryCodePeppers: { active: { version: 'p2', secret: randomBytes(32) } },
    })
    await expect(
      dropped.service.redeemRecoveryCode({ accountId: 'alice', code: old[1] }),
    ).rejects.toMatchObject({
      code: 'totp.invalid_recovery_code',
    })
  })

  it('of 20 concurrent redemptions of one code exactly one wins', async () => {
    h = harness(new MemoryTotpStore(), { attempts: { limit: 100, windowSeconds: 300 } })
    const { codes: fresh } = await enrolled(h)
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => h.service.redeemRecoveryCode({ accountId: 'alice', code: fresh[0] })),
    )
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
  })

  it('are removed with the enrollment', async () => {
    await h.service.disable({ accountId: 'alice' })
    await expect(h.service.redeemRecoveryCode({ accountId: 'alice', code: codes[0] })).rejects.toMatchObject({
      code: 'totp.invalid_recovery_code',
    })
  })
})
