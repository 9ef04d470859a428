import type { MemoryAccountData } from '../accounts/memory-tables.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { MemoryMailOutbox } from '../mail/memory-outbox.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { type EnvelopeLocationCount, emptyTally, tallyEnvelope } from '../protection/inventory.js'
import type { EnvelopeCounting } from '../protection/memory-inventory.js'
import {
  requireTotpAccountId,
  validateEnableTotp,
  validateRedeemRecoveryCode,
  validateRemoveTotpOptions,
  validateReplaceRecoveryCodes,
  validateSavePendingTotp,
  validateUseTotpStep,
} from './input.js'
import {
  type ListStaleTotpSecretsRequest,
  type ResealTotpSecretRequest,
  type StaleTotpSecret,
  sealedSecretKeyVersion,
  type TotpSecretResealing,
  validateListStaleTotpSecrets,
  validateResealTotpSecret,
} from './resealing.js'
import type {
  EnableTotpRequest,
  RedeemRecoveryCodeRequest,
  RemoveTotpOptions,
  ReplaceRecoveryCodesRequest,
  SavePendingTotpRequest,
  TotpEnrollment,
  TotpStore,
  UseTotpStepRequest,
} from './store.js'

function copy(enrollment: TotpEnrollment): TotpEnrollment {
  return Object.freeze({
    ...enrollment,
    createdAt: new Date(enrollment.createdAt.getTime()),
    enabledAt: enrollment.enabledAt === null ? null : new Date(enrollment.enabledAt.getTime()),
  })
}

/**
 * In-memory `TotpStore` for tests and a single process: every operation runs synchronously between two
 * awaits, so each is atomic. Several instances need a shared store (Postgres) for replay protection.
 * Pass it in `MemoryAccountStore({ cascade })` so deleting an account removes its enrollment and codes.
 */
export class MemoryTotpStore implements TotpStore, TotpSecretResealing, MemoryAccountData, EnvelopeCounting {
  readonly #enrollments = new Map<string, TotpEnrollment>()
  readonly #codes = new Map<string, Set<string>>()
  readonly #outbox: MemoryMailOutbox | undefined

  /**
   * `outbox`: where the security notifications of enabling, removing and replacing recovery codes are
   * written, in the change's step and only when the change happens. Without it, a request that carries
   * entries is refused (`totp.outbox_not_configured`).
   */
  constructor(options: { readonly outbox?: MemoryMailOutbox } = {}) {
    this.#outbox = options.outbox
  }

  /** The writer of `entries` (checked now), run in the change's synchronous step. */
  #stage(entries: readonly OutboxEntry[] | undefined): () => void {
    if (entries === undefined || entries.length === 0) return () => {}
    if (this.#outbox === undefined) {
      throw new ConfigurationError(
        'totp.outbox_not_configured',
        'this MemoryTotpStore has no outbox: pass { outbox: MemoryMailOutbox } to write notifications with changes',
      )
    }
    return this.#outbox.prepareWrite(entries)
  }

  async getTotpEnrollment(accountId: string): Promise<TotpEnrollment | null> {
    const stored = this.#enrollments.get(requireTotpAccountId(accountId))
    return stored === undefined ? null : copy(stored)
  }

  async savePendingTotp(request: SavePendingTotpRequest): Promise<'saved' | 'already-enabled'> {
    const { accountId, sealedSecret, now } = validateSavePendingTotp(request)
    if (this.#enrollments.get(accountId)?.status === 'enabled') return 'already-enabled'
    this.#enrollments.set(accountId, {
      accountId,
      sealedSecret,
      status: 'pending',
      createdAt: now,
      enabledAt: null,
      lastUsedStep: null,
    })
    return 'saved'
  }

  async enableTotp(request: EnableTotpRequest): Promise<boolean> {
    const { accountId, sealedSecret, step, recoveryCodeDigests, now, outbox } = validateEnableTotp(request)
    const write = this.#stage(outbox)
    const stored = this.#enrollments.get(accountId)
    if (stored?.status !== 'pending' || stored.sealedSecret !== sealedSecret) return false
    this.#enrollments.set(accountId, { ...stored, status: 'enabled', enabledAt: now, lastUsedStep: step })
    this.#codes.set(accountId, new Set(recoveryCodeDigests))
    write()
    return true
  }

  async useTotpStep(request: UseTotpStepRequest): Promise<boolean> {
    const { accountId, step } = validateUseTotpStep(request)
    const stored = this.#enrollments.get(accountId)
    if (stored?.status !== 'enabled') return false
    if (stored.lastUsedStep !== null && step <= stored.lastUsedStep) return false
    this.#enrollments.set(accountId, { ...stored, lastUsedStep: step })
    return true
  }

  async removeTotp(accountId: string, options?: RemoveTotpOptions): Promise<boolean> {
    const key = requireTotpAccountId(accountId)
    const write = this.#stage(validateRemoveTotpOptions(options))
    this.#codes.delete(key)
    if (!this.#enrollments.delete(key)) return false
    write()
    return true
  }

  async replaceRecoveryCodes(request: ReplaceRecoveryCodesRequest): Promise<boolean> {
    const { accountId, digests, outbox } = validateReplaceRecoveryCodes(request)
    const write = this.#stage(outbox)
    if (this.#enrollments.get(accountId)?.status !== 'enabled') return false
    this.#codes.set(accountId, new Set(digests))
    write()
    return true
  }

  async redeemRecoveryCode(request: RedeemRecoveryCodeRequest): Promise<boolean> {
    const { accountId, candidates } = validateRedeemRecoveryCode(request)
    const codes = this.#codes.get(accountId)
    if (codes === undefined) return false
    for (const candidate of candidates) if (codes.delete(candidate)) return true
    return false
  }

  async countRecoveryCodes(accountId: string): Promise<number> {
    return this.#codes.get(requireTotpAccountId(accountId))?.size ?? 0
  }

  async listStaleTotpSecrets(request: ListStaleTotpSecretsRequest): Promise<readonly StaleTotpSecret[]> {
    const { activeKeyVersion, afterAccountId, limit } = validateListStaleTotpSecrets(request)
    const stale: StaleTotpSecret[] = []
    for (const { accountId, sealedSecret } of this.#enrollments.values()) {
      if (afterAccountId !== undefined && accountId <= afterAccountId) continue
      if (sealedSecretKeyVersion(sealedSecret) !== activeKeyVersion) stale.push({ accountId, sealedSecret })
    }
    // Code-unit order, the same on every call, so the cursor moves strictly forward.
    stale.sort((a, b) => (a.accountId < b.accountId ? -1 : 1))
    return stale.slice(0, limit)
  }

  async resealTotpSecret(request: ResealTotpSecretRequest): Promise<boolean> {
    const { accountId, expected, sealedSecret } = validateResealTotpSecret(request)
    const stored = this.#enrollments.get(accountId)
    if (stored?.sealedSecret !== expected) return false
    this.#enrollments.set(accountId, { ...stored, sealedSecret })
    return true
  }

  /** The account's enrollment and recovery codes go with it (`MemoryAccountStore({ cascade })`). */
  deleteAccountData(accountId: string): number {
    const codes = this.#codes.get(accountId)?.size ?? 0
    this.#codes.delete(accountId)
    return this.#enrollments.delete(accountId) ? codes + 1 : codes
  }

  /** The sealed secrets of pending and enabled enrollments (`MemoryEnvelopeInventory`); they never expire. */
  countEnvelopes(_now: Date): readonly EnvelopeLocationCount[] {
    const tally = emptyTally()
    for (const { sealedSecret } of this.#enrollments.values()) tallyEnvelope(tally, sealedSecret)
    return [
      {
        location: 'totp.sealedSecret',
        holding: 'totp-secret',
        ...tally,
        method: 'in-memory enrollments, pending and enabled',
      },
    ]
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryTotpStore { accounts: ${this.#enrollments.size} }`
  }
}
