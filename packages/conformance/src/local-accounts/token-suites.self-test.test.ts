import { setImmediate as tick } from 'node:timers/promises'
import {
  type ConsumeRateLimitRequest,
  type CreateRefreshFamilyRequest,
  type RateLimitDecision,
  type RateLimitStore,
  type RefreshTokenStore,
  type RevokeAccountRefreshFamiliesRequest,
  type RevokeRefreshFamilyRequest,
  type RotateRefreshTokenOutcome,
  type RotateRefreshTokenRequest,
  rateLimitDecision,
  refreshFamilyRecord,
  requireRateLimitKey,
  validateConsumeRateLimit,
  validateCreateRefreshFamily,
  validateRevokeAccountRefreshFamilies,
  validateRevokeRefreshFamily,
  validateRotateRefreshToken,
} from '@portcullis/core/local-accounts'
import { describe, expect, it } from 'vitest'
import { runSuite } from '../suite/suite.js'
import {
  assertRateLimitStoreConformance,
  assertRefreshTokenStoreConformance,
  rateLimitStoreSuite,
  refreshTokenStoreSuite,
} from './index.js'

type RefreshFlaw =
  | 'none'
  | 'non-atomic-rotate'
  | 'reuse-not-revoking'
  | 'uncapped-expiry'
  | 'revoke-unused-token-only'
  | 'revoke-account-counts-all'
  | 'duplicate-overwrites'
  | 'lenient'

interface Family {
  readonly record: CreateRefreshFamilyRequest
  revoked: boolean
}

/** A deliberately naive refresh-token store: correct with flaw `none`, each other flaw breaks one rule. */
class NaiveRefreshTokenStore implements RefreshTokenStore {
  readonly #families = new Map<string, Family>()
  readonly #tokens = new Map<string, { familyId: string; expiresAt: Date; rotatedAt?: Date }>()

  constructor(private readonly flaw: RefreshFlaw) {}

  async createFamily(request: CreateRefreshFamilyRequest): Promise<void> {
    if (this.flaw !== 'lenient') validateCreateRefreshFamily(request)
    const clash = this.#families.has(request.familyId) || this.#tokens.has(request.token.digest)
    if (clash && this.flaw !== 'duplicate-overwrites') {
      throw Object.assign(new Error('duplicate'), { code: 'local.store_duplicate' })
    }
    this.#families.set(request.familyId, { record: request, revoked: false })
    this.#tokens.set(request.token.digest, { familyId: request.familyId, expiresAt: request.token.expiresAt })
  }

  async rotate(request: RotateRefreshTokenRequest): Promise<RotateRefreshTokenOutcome> {
    const { presentedDigest, next, now } =
      this.flaw === 'lenient' ? request : validateRotateRefreshToken(request)
    const token = this.#tokens.get(presentedDigest)
    const family = token && this.#families.get(token.familyId)
    if (!token || !family || now >= family.record.absoluteExpiresAt) return { outcome: 'invalid' }
    if (token.rotatedAt !== undefined) {
      if (this.flaw !== 'reuse-not-revoking') family.revoked = true
      const { familyId, accountId } = family.record
      return { outcome: 'reused', familyId, accountId, rotatedAt: token.rotatedAt }
    }
    if (family.revoked || now >= token.expiresAt) return { outcome: 'invalid' }
    if (this.flaw === 'non-atomic-rotate') await tick()
    if (this.#tokens.has(next.digest) && this.flaw !== 'duplicate-overwrites') {
      throw Object.assign(new Error('duplicate'), { code: 'local.store_duplicate' })
    }
    token.rotatedAt = now
    const cap = family.record.absoluteExpiresAt.getTime()
    const expiresAt =
      this.flaw === 'uncapped-expiry' ? next.expiresAt : new Date(Math.min(next.expiresAt.getTime(), cap))
    this.#tokens.set(next.digest, { familyId: token.familyId, expiresAt })
    return { outcome: 'rotated', family: refreshFamilyRecord(family.record), expiresAt }
  }

  async revoke(request: RevokeRefreshFamilyRequest): Promise<boolean> {
    const target = validateRevokeRefreshFamily(request)
    const token = target.by === 'digest' ? this.#tokens.get(target.digest) : undefined
    if (this.flaw === 'revoke-unused-token-only' && token?.rotatedAt !== undefined) return false
    const family = this.#families.get(target.by === 'family' ? target.familyId : (token?.familyId ?? ''))
    if (!family || family.revoked || target.now >= family.record.absoluteExpiresAt) return false
    family.revoked = true
    return true
  }

  async revokeAccount(request: RevokeAccountRefreshFamiliesRequest): Promise<number> {
    const { accountId, now } = validateRevokeAccountRefreshFamilies(request)
    let count = 0
    for (const family of this.#families.values()) {
      if (family.record.accountId !== accountId) continue
      const live = !family.revoked && now < family.record.absoluteExpiresAt
      if (live || this.flaw === 'revoke-account-counts-all') count += 1
      family.revoked = true
    }
    return count
  }
}

type RateFlaw =
  | 'none'
  | 'non-atomic-consume'
  | 'window-ends-late'
  | 'sliding-window'
  | 'reset-all'
  | 'lenient'

/** A deliberately naive rate-limit store: correct with flaw `none`, each other flaw breaks one rule. */
class NaiveRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, { count: number; resetAt: Date }>()

  constructor(private readonly flaw: RateFlaw) {}

  async consume(request: ConsumeRateLimitRequest): Promise<RateLimitDecision> {
    const { key, limit, windowSeconds, now } =
      this.flaw === 'lenient' ? request : validateConsumeRateLimit(request)
    const before = this.#windows.get(key)
    if (this.flaw === 'non-atomic-consume') await tick()
    const ended =
      before === undefined ||
      (this.flaw === 'window-ends-late' ? now > before.resetAt : now.getTime() >= before.resetAt.getTime())
    const count = ended ? 1 : before.count + 1
    const opened = new Date(now.getTime() + windowSeconds * 1000)
    const resetAt = ended || this.flaw === 'sliding-window' ? opened : before.resetAt
    this.#windows.set(key, { count, resetAt })
    return rateLimitDecision(count, limit, resetAt)
  }

  async reset(key: string): Promise<void> {
    if (this.flaw !== 'lenient') requireRateLimitKey(key)
    if (this.flaw === 'reset-all') this.#windows.clear()
    else this.#windows.delete(key)
  }
}

const refreshFlaws: readonly { flaw: RefreshFlaw; caught: readonly string[] }[] = [
  { flaw: 'non-atomic-rotate', caught: ['refresh.concurrent-rotation'] },
  { flaw: 'reuse-not-revoking', caught: ['refresh.reuse-revokes-family', 'refresh.concurrent-rotation'] },
  { flaw: 'uncapped-expiry', caught: ['refresh.expiry'] },
  { flaw: 'revoke-unused-token-only', caught: ['refresh.revoke'] },
  { flaw: 'revoke-account-counts-all', caught: ['refresh.revoke-account'] },
  { flaw: 'duplicate-overwrites', caught: ['refresh.duplicates'] },
  { flaw: 'lenient', caught: ['refresh.input'] },
]

const rateFlaws: readonly { flaw: RateFlaw; caught: readonly string[] }[] = [
  { flaw: 'non-atomic-consume', caught: ['rate-limits.concurrent-consume'] },
  { flaw: 'window-ends-late', caught: ['rate-limits.fixed-window'] },
  { flaw: 'sliding-window', caught: ['rate-limits.fixed-window'] },
  { flaw: 'reset-all', caught: ['rate-limits.keys-and-reset'] },
  { flaw: 'lenient', caught: ['rate-limits.input'] },
]

describe('RefreshTokenStore conformance suite against deliberately broken stores', () => {
  it('passes the naive store without a flaw', async () => {
    const factory = () => ({ store: new NaiveRefreshTokenStore('none') })
    await expect(assertRefreshTokenStoreConformance(factory)).resolves.toBeUndefined()
  })

  for (const { flaw, caught } of refreshFlaws) {
    it(`fails "${flaw}" naming ${caught.join(', ')}`, async () => {
      const results = await runSuite(
        refreshTokenStoreSuite(() => ({ store: new NaiveRefreshTokenStore(flaw) })),
      )
      expect(results.filter((result) => !result.passed).map((result) => result.id)).toEqual(
        expect.arrayContaining([...caught]),
      )
    })
  }
})

describe('RateLimitStore conformance suite against deliberately broken stores', () => {
  it('passes the naive store without a flaw', async () => {
    const factory = () => ({ store: new NaiveRateLimitStore('none') })
    await expect(assertRateLimitStoreConformance(factory)).resolves.toBeUndefined()
  })

  for (const { flaw, caught } of rateFlaws) {
    it(`fails "${flaw}" naming ${caught.join(', ')}`, async () => {
      const results = await runSuite(rateLimitStoreSuite(() => ({ store: new NaiveRateLimitStore(flaw) })))
      expect(results.filter((result) => !result.passed).map((result) => result.id)).toEqual(
        expect.arrayContaining([...caught]),
      )
    })
  }
})
