import type { OutboxEntry } from '../mail/outbox.js'
/** Whether an enrollment waits for its first code (`pending`) or is the account's second factor. */
export type TotpEnrollmentStatus = 'pending' | 'enabled'

/**
 * An account's TOTP enrollment as stored: the secret only as a protector envelope
 * (`serializeProtectedEnvelope`, associated data bound to the account), never in plaintext.
 */
export interface TotpEnrollment {
  readonly accountId: string
  /** `pe1.<keyVersion>.<base64url>`: the sealed 20-byte secret. */
  readonly sealedSecret: string
  readonly status: TotpEnrollmentStatus
  readonly createdAt: Date
  /** When the first valid code enabled it; null while pending. */
  readonly enabledAt: Date | null
  /** The highest time step a code was accepted for (codes at or below it are refused); null before any. */
  readonly lastUsedStep: number | null
}

export interface SavePendingTotpRequest {
  readonly accountId: string
  readonly sealedSecret: string
  readonly now: Date
}

export interface EnableTotpRequest {
  readonly accountId: string
  /** The exact envelope the confirmed code was checked against (compare-and-swap). */
  readonly sealedSecret: string
  /** The time step of the confirming code: it becomes `lastUsedStep`, so it cannot be used again. */
  readonly step: number
  /** The digests of the first recovery-code set, stored in the same transaction. */
  readonly recoveryCodeDigests: readonly string[]
  readonly now: Date
  /**
   * Security notifications of the change (`SecurityNotifier.entries`), written in the same transaction
   * and only when the change happens.
   */
  readonly outbox?: readonly OutboxEntry[] | undefined
}

export interface UseTotpStepRequest {
  readonly accountId: string
  readonly step: number
}

export interface ReplaceRecoveryCodesRequest {
  readonly accountId: string
  readonly digests: readonly string[]
  readonly now: Date
  /**
   * Security notifications of the change (`SecurityNotifier.entries`), written in the same transaction
   * and only when the change happens.
   */
  readonly outbox?: readonly OutboxEntry[] | undefined
}

/** What `removeTotp` writes with the removal. */
export interface RemoveTotpOptions {
  /**
   * Security notifications of the change (`SecurityNotifier.entries`), written in the same transaction
   * and only when the change happens.
   */
  readonly outbox?: readonly OutboxEntry[] | undefined
}

export interface RedeemRecoveryCodeRequest {
  readonly accountId: string
  /** The presented code's digest under each pepper version in use: at most one can be stored. */
  readonly candidates: readonly string[]
}

/** The TOTP enrollment of each account and the one-time record of used time steps. */
export interface TotpEnrollments {
  getTotpEnrollment(accountId: string): Promise<TotpEnrollment | null>
  /**
   * Stores a pending enrollment, replacing a pending one of the account; `already-enabled` (nothing
   * changes) while the account has an enabled one.
   */
  savePendingTotp(request: SavePendingTotpRequest): Promise<'saved' | 'already-enabled'>
  /**
   * In one transaction: the pending enrollment holding exactly `sealedSecret` becomes enabled with
   * `lastUsedStep = step`, and the account's recovery codes are replaced by `recoveryCodeDigests`.
   * False (nothing changes) when there is no such pending enrollment.
   */
  enableTotp(request: EnableTotpRequest): Promise<boolean>
  /**
   * Records that a code of time step `step` was accepted: true only when the account has an enabled
   * enrollment and `step` is above its `lastUsedStep`, which it becomes, in one atomic step. Of
   * concurrent calls for one step, on any number of instances, exactly one gets true.
   */
  useTotpStep(request: UseTotpStepRequest): Promise<boolean>
  /**
   * Removes the enrollment (pending or enabled) and every recovery code of the account, with `outbox`
   * in the same transaction; false when none (nothing is written).
   */
  removeTotp(accountId: string, options?: RemoveTotpOptions): Promise<boolean>
}

/** Recovery codes, stored as digests only, each usable once. */
export interface RecoveryCodeSet {
  /**
   * Replaces every recovery code of the account with `digests` in one transaction, only while the
   * account has an enabled enrollment (false otherwise, nothing changes). The old set is gone at once.
   */
  replaceRecoveryCodes(request: ReplaceRecoveryCodesRequest): Promise<boolean>
  /**
   * Removes the stored code matching one of `candidates`: true for exactly one of any number of
   * concurrent redemptions of one code, false for an unknown or used code.
   */
  redeemRecoveryCode(request: RedeemRecoveryCodeRequest): Promise<boolean>
  /** How many unused recovery codes the account has. */
  countRecoveryCodes(accountId: string): Promise<number>
}

/**
 * Port: the TOTP second factor of accounts (enrollments, used time steps) and their recovery codes,
 * keyed by account id. Every operation is one transaction.
 */
export interface TotpStore extends TotpEnrollments, RecoveryCodeSet {}
