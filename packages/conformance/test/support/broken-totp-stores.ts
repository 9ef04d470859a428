import { setImmediate as tick } from 'node:timers/promises'
import {
  type EnableTotpRequest,
  MemoryTotpStore,
  type RedeemRecoveryCodeRequest,
  type ReplaceRecoveryCodesRequest,
  type SavePendingTotpRequest,
  type TotpEnrollment,
  type TotpStore,
  type UseTotpStepRequest,
} from '@portcullis/core/totp'
import type { TotpStoreFixture } from '../../src/totp/index.js'

type Flaw =
  | 'non-atomic-step'
  | 'equal-step-accepted'
  | 'replace-appends'
  | 'replaying-redeem'
  | 'non-atomic-redeem'
  | 'pending-overwrites-enabled'
  | 'enable-ignores-secret'
  | 'lenient-input'

/** A deliberately naive map-backed store; each flaw breaks one invariant and nothing else. */
class NaiveTotpStore implements TotpStore {
  readonly #enrollments = new Map<string, TotpEnrollment>()
  readonly #codes = new Map<string, string[]>()

  constructor(private readonly flaw: Flaw) {}

  #check(accountId: string): void {
    if (this.flaw !== 'lenient-input' && (accountId.trim() !== accountId || accountId === '')) {
      throw Object.assign(new Error('bad account'), { code: 'totp.invalid_input' })
    }
  }

  async getTotpEnrollment(accountId: string): Promise<TotpEnrollment | null> {
    this.#check(accountId)
    return this.#enrollments.get(accountId) ?? null
  }

  async savePendingTotp(request: SavePendingTotpRequest): Promise<'saved' | 'already-enabled'> {
    this.#check(request.accountId)
    if (
      this.flaw !== 'lenient-input' &&
      (!request.sealedSecret.startsWith('pe1.') || Number.isNaN(request.now.getTime()))
    ) {
      throw Object.assign(new Error('bad input'), { code: 'totp.invalid_input' })
    }
    const stored = this.#enrollments.get(request.accountId)
    if (stored?.status === 'enabled' && this.flaw !== 'pending-overwrites-enabled') return 'already-enabled'
    this.#enrollments.set(request.accountId, {
      accountId: request.accountId,
      sealedSecret: request.sealedSecret,
      status: 'pending',
      createdAt: request.now,
      enabledAt: null,
      lastUsedStep: null,
    })
    return 'saved'
  }

  async enableTotp(request: EnableTotpRequest): Promise<boolean> {
    const stored = this.#enrollments.get(request.accountId)
    if (stored?.status !== 'pending') return false
    if (stored.sealedSecret !== request.sealedSecret && this.flaw !== 'enable-ignores-secret') return false
    this.#enrollments.set(request.accountId, {
      ...stored,
      status: 'enabled',
      enabledAt: request.now,
      lastUsedStep: request.step,
    })
    this.#codes.set(request.accountId, [...request.recoveryCodeDigests])
    return true
  }

  async useTotpStep(request: UseTotpStepRequest): Promise<boolean> {
    if (this.flaw !== 'lenient-input' && (!Number.isSafeInteger(request.step) || request.step < 0)) {
      throw Object.assign(new Error('bad step'), { code: 'totp.invalid_input' })
    }
    const stored = this.#enrollments.get(request.accountId)
    if (stored?.status !== 'enabled') return false
    const last = stored.lastUsedStep ?? -1
    const fresh = this.flaw === 'equal-step-accepted' ? request.step >= last : request.step > last
    if (!fresh) return false
    if (this.flaw === 'non-atomic-step') await tick()
    this.#enrollments.set(request.accountId, { ...stored, lastUsedStep: request.step })
    return true
  }

  async removeTotp(accountId: string): Promise<boolean> {
    this.#codes.delete(accountId)
    return this.#enrollments.delete(accountId)
  }

  async replaceRecoveryCodes(request: ReplaceRecoveryCodesRequest): Promise<boolean> {
    if (this.flaw !== 'lenient-input' && new Set(request.digests).size !== request.digests.length) {
      throw Object.assign(new Error('duplicate'), { code: 'totp.invalid_input' })
    }
    if (this.#enrollments.get(request.accountId)?.status !== 'enabled') return false
    const kept = this.flaw === 'replace-appends' ? (this.#codes.get(request.accountId) ?? []) : []
    this.#codes.set(request.accountId, [...kept, ...request.digests])
    return true
  }

  async redeemRecoveryCode(request: RedeemRecoveryCodeRequest): Promise<boolean> {
    if (
      this.flaw !== 'lenient-input' &&
      (request.candidates.length === 0 || request.candidates.some((c) => !c.includes(':')))
    ) {
      throw Object.assign(new Error('bad digest'), { code: 'totp.invalid_input' })
    }
    const codes = this.#codes.get(request.accountId) ?? []
    const index = codes.findIndex((code) => request.candidates.includes(code))
    if (index < 0) return false
    if (this.flaw === 'replaying-redeem') return true
    if (this.flaw === 'non-atomic-redeem') await tick()
    const now = this.#codes.get(request.accountId) ?? []
    this.#codes.set(
      request.accountId,
      now.filter((code) => code !== codes[index]),
    )
    return true
  }

  async countRecoveryCodes(accountId: string): Promise<number> {
    return this.#codes.get(accountId)?.length ?? 0
  }
}

export interface BrokenTotpStore {
  readonly name: string
  readonly factory: () => TotpStoreFixture
  readonly caught: readonly string[]
}

const naive = (flaw: Flaw) => () => ({ store: new NaiveTotpStore(flaw) })

export const brokenTotpStores: readonly BrokenTotpStore[] = [
  { name: 'check-then-set step', factory: naive('non-atomic-step'), caught: ['totp.concurrent-step'] },
  { name: 'a used step accepted again', factory: naive('equal-step-accepted'), caught: ['totp.step-once'] },
  {
    name: 'regenerating keeps the old set',
    factory: naive('replace-appends'),
    caught: ['recovery.replace-revokes'],
  },
  {
    name: 'redeeming never deletes',
    factory: naive('replaying-redeem'),
    caught: ['recovery.redeem-once', 'recovery.concurrent-redeem'],
  },
  {
    name: 'check-then-delete redeem',
    factory: naive('non-atomic-redeem'),
    caught: ['recovery.concurrent-redeem'],
  },
  {
    name: 'pending save replaces an enabled one',
    factory: naive('pending-overwrites-enabled'),
    caught: ['totp.enabled-kept'],
  },
  {
    name: 'enable without compare-and-swap',
    factory: naive('enable-ignores-secret'),
    caught: ['totp.enable-compare-and-swap'],
  },
  { name: 'lenient input', factory: naive('lenient-input'), caught: ['totp.input'] },
]

export const memoryTotpFixture = (): TotpStoreFixture => {
  const store = new MemoryTotpStore()
  return { store, sibling: store }
}
