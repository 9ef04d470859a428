import { duplicateRecord } from '../store-errors.js'
import {
  type CreateRefreshFamilyRequest,
  type RefreshFamilyRecord,
  type RefreshTokenStore,
  type RevokeAccountRefreshFamiliesRequest,
  type RevokeRefreshFamilyRequest,
  type RotateRefreshTokenOutcome,
  type RotateRefreshTokenRequest,
  refreshFamilyRecord,
  validateCreateRefreshFamily,
  validateRevokeAccountRefreshFamilies,
  validateRevokeRefreshFamily,
  validateRotateRefreshToken,
} from './refresh-token-store.js'

interface Family {
  readonly record: RefreshFamilyRecord
  readonly digests: Set<string>
  revokedAt: Date | undefined
}

interface Token {
  readonly familyId: string
  readonly expiresAt: Date
  rotatedAt: Date | undefined
}

const SWEEP_AT_LEAST = 1024

/**
 * In-memory `RefreshTokenStore` for tests and single-process development. Each operation validates its
 * input, then reads and writes in one synchronous step, so of concurrent rotations of one token exactly
 * one wins. Families past their absolute expiry are dropped (with their tokens) when the store has
 * doubled in size since the last sweep.
 */
export class MemoryRefreshTokenStore implements RefreshTokenStore {
  readonly #families = new Map<string, Family>()
  readonly #tokens = new Map<string, Token>()
  #sweepAt = SWEEP_AT_LEAST

  async createFamily(request: CreateRefreshFamilyRequest): Promise<void> {
    const { family, token } = validateCreateRefreshFamily(request)
    if (this.#families.has(family.familyId)) throw duplicateRecord('a refresh token family with this id')
    if (this.#tokens.has(token.digest)) throw duplicateRecord('a refresh token with this digest')
    this.#families.set(family.familyId, {
      record: family,
      digests: new Set([token.digest]),
      revokedAt: undefined,
    })
    this.#tokens.set(token.digest, {
      familyId: family.familyId,
      expiresAt: token.expiresAt,
      rotatedAt: undefined,
    })
    if (this.#families.size >= this.#sweepAt) this.#sweep(family.createdAt)
  }

  async rotate(request: RotateRefreshTokenRequest): Promise<RotateRefreshTokenOutcome> {
    const { presentedDigest, next, now } = validateRotateRefreshToken(request)
    const token = this.#tokens.get(presentedDigest)
    const family = token === undefined ? undefined : this.#families.get(token.familyId)
    if (token === undefined || family === undefined || !before(now, family.record.absoluteExpiresAt)) {
      return { outcome: 'invalid' }
    }
    if (token.rotatedAt !== undefined) {
      family.revokedAt ??= now
      return {
        outcome: 'reused',
        familyId: family.record.familyId,
        accountId: family.record.accountId,
        rotatedAt: new Date(token.rotatedAt.getTime()),
      }
    }
    if (family.revokedAt !== undefined || !before(now, token.expiresAt)) return { outcome: 'invalid' }
    if (this.#tokens.has(next.digest)) throw duplicateRecord('a refresh token with this digest')
    token.rotatedAt = now
    const expiresAt = new Date(Math.min(next.expiresAt.getTime(), family.record.absoluteExpiresAt.getTime()))
    this.#tokens.set(next.digest, { familyId: family.record.familyId, expiresAt, rotatedAt: undefined })
    family.digests.add(next.digest)
    return { outcome: 'rotated', family: refreshFamilyRecord(family.record), expiresAt: new Date(expiresAt) }
  }

  async revoke(request: RevokeRefreshFamilyRequest): Promise<boolean> {
    const target = validateRevokeRefreshFamily(request)
    const familyId = target.by === 'family' ? target.familyId : this.#tokens.get(target.digest)?.familyId
    const family = familyId === undefined ? undefined : this.#families.get(familyId)
    if (family === undefined) return false
    return this.#revokeFamily(family, target.now)
  }

  async revokeAccount(request: RevokeAccountRefreshFamiliesRequest): Promise<number> {
    const { accountId, now } = validateRevokeAccountRefreshFamilies(request)
    let revoked = 0
    for (const family of this.#families.values()) {
      if (family.record.accountId === accountId && this.#revokeFamily(family, now)) revoked += 1
    }
    return revoked
  }

  /**
   * Removes every refresh-token family of the account with its tokens (for `MemoryAccountStore({ cascade })`:
   * an account deletion takes them in the same step). How many families went.
   */
  deleteAccountData(accountId: string): number {
    let removed = 0
    for (const [familyId, family] of this.#families) {
      if (family.record.accountId !== accountId) continue
      for (const digest of family.digests) this.#tokens.delete(digest)
      this.#families.delete(familyId)
      removed += 1
    }
    return removed
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryRefreshTokenStore { families: ${this.#families.size}, tokens: ${this.#tokens.size} }`
  }

  #revokeFamily(family: Family, now: Date): boolean {
    if (family.revokedAt !== undefined || !before(now, family.record.absoluteExpiresAt)) return false
    family.revokedAt = now
    return true
  }

  #sweep(now: Date): void {
    for (const [familyId, family] of [...this.#families]) {
      if (before(now, family.record.absoluteExpiresAt)) continue
      for (const digest of family.digests) this.#tokens.delete(digest)
      this.#families.delete(familyId)
    }
    this.#sweepAt = Math.max(SWEEP_AT_LEAST, this.#families.size * 2)
  }
}

function before(now: Date, limit: Date): boolean {
  return now.getTime() < limit.getTime()
}
