import { setImmediate as tick } from 'node:timers/promises'
import { MemoryMailOutbox, type OutboxEntry } from '@portcullis/core/mail'
import {
  type EnableTotpRequest,
  type ListStaleTotpSecretsRequest,
  MemoryTotpStore,
  type RedeemRecoveryCodeRequest,
  type ReplaceRecoveryCodesRequest,
  type ResealTotpSecretRequest,
  type SavePendingTotpRequest,
  type StaleTotpSecret,
  sealedSecretKeyVersion,
  type TotpEnrollment,
  type TotpSecretResealing,
  type TotpStore,
  type UseTotpStepRequest,
  validateListStaleTotpSecrets,
  validateResealTotpSecret,
} from '@portcullis/core/totp'
import type { TotpResealingFixture, TotpStoreFixture } from '../../src/totp/index.js'

type Flaw =
  | 'non-atomic-step'
  | 'equal-step-accepted'
  | 'replace-appends'
  | 'replaying-redeem'
  | 'non-atomic-redeem'
  | 'pending-overwrites-enabled'
  | 'enable-ignores-secret'
  | 'lenient-input'
  | 'reseal-ignores-expected'
  | 'reseal-resurrects'
  | 'listing-skips-pending'
  | 'listing-repeats-cursor'

/** A deliberately naive map-backed store; each flaw breaks one invariant and nothing else. */
class NaiveTotpStore implements TotpStore, TotpSecretResealing {
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

  async listStaleTotpSecrets(request: ListStaleTotpSecretsRequest): Promise<readonly StaleTotpSecret[]> {
    const { activeKeyVersion, afterAccountId, limit } = validateListStaleTotpSecrets(request)
    const from =
      this.flaw === 'listing-repeats-cursor'
        ? (a: string, b: string) => a >= b
        : (a: string, b: string) => a > b
    return [...this.#enrollments.values()]
      .filter((stored) => afterAccountId === undefined || from(stored.accountId, afterAccountId))
      .filter((stored) => sealedSecretKeyVersion(stored.sealedSecret) !== activeKeyVersion)
      .filter((stored) => this.flaw !== 'listing-skips-pending' || stored.status === 'enabled')
      .sort((a, b) => (a.accountId < b.accountId ? -1 : 1))
      .slice(0, limit)
      .map(({ accountId, sealedSecret }) => ({ accountId, sealedSecret }))
  }

  async resealTotpSecret(request: ResealTotpSecretRequest): Promise<boolean> {
    const { accountId, expected, sealedSecret } = validateResealTotpSecret(request)
    const stored = this.#enrollments.get(accountId)
    if (stored === undefined) {
      if (this.flaw !== 'reseal-resurrects') return false
      const now = new Date()
      this.#enrollments.set(accountId, {
        accountId,
        sealedSecret,
        status: 'enabled',
        createdAt: now,
        enabledAt: now,
        lastUsedStep: null,
      })
      return true
    }
    if (stored.sealedSecret !== expected && this.flaw !== 'reseal-ignores-expected') return false
    this.#enrollments.set(accountId, { ...stored, sealedSecret })
    return true
  }
}

export interface BrokenTotpStore {
  readonly name: string
  readonly factory: () => TotpStoreFixture
  readonly caught: readonly string[]
}

const naive = (flaw: Flaw) => () => ({ store: new NaiveTotpStore(flaw) })

/**
 * Enqueues each change's notification first, in a step of its own, and then makes the change without
 * it: a refused change is still notified, and a failing change would leave its notification behind.
 */
function notifiesOutsideTheChange(): TotpStoreFixture {
  const outbox = new MemoryMailOutbox()
  const inner = new MemoryTotpStore()
  const first = async (entries: readonly OutboxEntry[] | undefined) => {
    if (entries !== undefined && entries.length > 0) await outbox.enqueue(entries)
  }
  const store = new Proxy(inner, {
    get(target, property) {
      if (property === 'enableTotp')
        return async (request: EnableTotpRequest) => {
          await first(request.outbox)
          return target.enableTotp({ ...request, outbox: undefined })
        }
      if (property === 'replaceRecoveryCodes')
        return async (request: ReplaceRecoveryCodesRequest) => {
          await first(request.outbox)
          return target.replaceRecoveryCodes({ ...request, outbox: undefined })
        }
      if (property === 'removeTotp')
        return async (accountId: string, options?: { readonly outbox?: readonly OutboxEntry[] }) => {
          await first(options?.outbox)
          return target.removeTotp(accountId)
        }
      const value = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { store, sibling: store, outbox }
}

export const brokenTotpStores: readonly BrokenTotpStore[] = [
  {
    name: 'notifications outside the change',
    factory: notifiesOutsideTheChange,
    caught: ['totp.outbox-atomic'],
  },
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

export interface BrokenResealingStore {
  readonly name: string
  readonly factory: () => TotpResealingFixture
  readonly caught: readonly string[]
}

const naiveResealing = (flaw: Flaw) => () => ({ store: new NaiveTotpStore(flaw) })

export const brokenResealingStores: readonly BrokenResealingStore[] = [
  {
    name: 'a rewrite without compare-and-swap',
    factory: naiveResealing('reseal-ignores-expected'),
    caught: ['totp-reseal.compare-and-swap', 'totp-reseal.no-resurrection'],
  },
  {
    name: 'a rewrite that brings a removed enrollment back',
    factory: naiveResealing('reseal-resurrects'),
    caught: ['totp-reseal.no-resurrection'],
  },
  {
    name: 'a listing that skips pending enrollments',
    factory: naiveResealing('listing-skips-pending'),
    caught: ['totp-reseal.lists-stale'],
  },
  {
    name: 'a listing that repeats its cursor',
    factory: naiveResealing('listing-repeats-cursor'),
    caught: ['totp-reseal.lists-stale'],
  },
]

export const memoryResealingFixture = (): TotpResealingFixture => ({ store: new MemoryTotpStore() })

export const memoryTotpFixture = (): TotpStoreFixture => {
  const outbox = new MemoryMailOutbox()
  const store = new MemoryTotpStore({ outbox })
  return { store, sibling: store, outbox }
}
