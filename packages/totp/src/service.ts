import { randomBytes as nodeRandomBytes } from 'node:crypto'
import { ConfigurationError, readOptions } from '@portcullis/core/errors'
import type { SecurityNoticeSource } from '@portcullis/core/local-accounts'
import {
  emitSecurityEvent,
  type SecurityEventFields,
  type SecurityEventSink,
  type SecurityEventSinkErrorHandler,
  type SecurityEventType,
} from '@portcullis/core/local-accounts'
import type { OutboxEntry, SecurityChange } from '@portcullis/core/mail'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import type { TotpFactor, TotpRequestContext, TotpStatus, TotpStore } from '@portcullis/core/totp'
import {
  invalidTotpInput,
  newRecoveryCode,
  normalizeRecoveryCode,
  RecoveryCodePeppers,
  RecoveryCodes,
  requireTotpAccountId,
  TotpEnrollmentStart,
  TotpError,
  TotpErrorCodes,
} from '@portcullis/core/totp'
import { DEFAULT_TOTP_ATTEMPTS, TotpAttempts } from './attempts.js'
import {
  matchTotpStep,
  normalizeTotpCode,
  openTotpSecret,
  sealTotpSecret,
  TOTP_SECRET_BYTES,
  totpProvisioning,
} from './one-time-code.js'
import { TOTP_SERVICE_OPTIONS as OPTIONS, type TotpServiceOptions } from './service-options.js'

export type { TotpServiceOptions } from './service-options.js'

/** How many recovery codes a set holds. */
export const RECOVERY_CODE_COUNT = 10

/**
 * The TOTP second factor (RFC 6238) and its recovery codes. Enrollment stores a sealed secret and is
 * enabled only by a first valid code; a code is accepted within +-`window` steps, once: its time step is
 * recorded in the store, so a replay is refused on every instance. Attempts (codes and recovery codes)
 * are limited per account in the shared rate-limit store before any secret is opened.
 */
export class TotpService implements TotpFactor {
  readonly issuer: string
  readonly #store: TotpStore
  readonly #protector: OAuthTransactionProtector
  readonly #attempts: TotpAttempts
  readonly #peppers: RecoveryCodePeppers
  readonly #window: number
  readonly #clock: () => number
  readonly #random: (size: number) => Uint8Array
  readonly #sink: SecurityEventSink | undefined
  readonly #onSinkError: SecurityEventSinkErrorHandler | undefined
  readonly #notices: SecurityNoticeSource | undefined

  constructor(options: TotpServiceOptions) {
    readOptions(options, 'TotpService', OPTIONS)
    const window = options.window ?? 1
    if (!Number.isInteger(window) || window < 0 || window > 2) {
      throw new ConfigurationError('totp.invalid_config', 'window must be 0, 1 or 2 steps')
    }
    const attempts = options.attempts ?? DEFAULT_TOTP_ATTEMPTS
    if (
      !Number.isSafeInteger(attempts.limit) ||
      attempts.limit < 1 ||
      attempts.limit > 100 ||
      !Number.isSafeInteger(attempts.windowSeconds) ||
      attempts.windowSeconds < 1 ||
      attempts.windowSeconds > 86_400
    ) {
      throw new ConfigurationError('totp.invalid_config', 'attempts: limit 1..100 per 1..86400 seconds')
    }
    if (options.issuer.trim() === '' || options.issuer.length > 64 || options.issuer.includes(':')) {
      throw new ConfigurationError('totp.invalid_config', 'issuer must be 1-64 characters without ":"')
    }
    this.issuer = options.issuer
    this.#store = options.store
    this.#notices = options.securityNotices
    this.#protector = options.protector
    this.#attempts = new TotpAttempts(options.rateLimits, attempts)
    this.#peppers = new RecoveryCodePeppers(
      options.recoveryCodePeppers.active,
      options.recoveryCodePeppers.retained ?? [],
    )
    this.#window = window
    this.#clock = options.clock ?? Date.now
    this.#random = options.randomBytes ?? nodeRandomBytes
    this.#sink = options.events
    this.#onSinkError = options.onEventSinkError
  }

  /** Whether the account signs in with a second factor (an enabled enrollment). */
  async isEnabled(accountId: string): Promise<boolean> {
    return (
      (await this.#read(() => this.#store.getTotpEnrollment(requireTotpAccountId(accountId))))?.status ===
      'enabled'
    )
  }

  /** The account's second-factor state for its settings page. */
  async status(accountId: string): Promise<TotpStatus> {
    const id = requireTotpAccountId(accountId)
    const enrollment = await this.#read(() => this.#store.getTotpEnrollment(id))
    const enabled = enrollment?.status === 'enabled'
    return {
      enabled,
      pending: enrollment?.status === 'pending',
      recoveryCodes: enabled ? await this.#read(() => this.#store.countRecoveryCodes(id)) : 0,
    }
  }

  /**
   * Starts (or restarts) an enrollment: a new secret, sealed and stored as pending, and what the user's
   * app needs (the `otpauth://` URI for a QR code, the base32 secret to type). `totp.already_enabled`
   * while TOTP is enabled. `label` is what the app lists (a username or e-mail address).
   */
  async beginEnrollment(request: {
    readonly accountId: string
    readonly label: string
  }): Promise<TotpEnrollmentStart> {
    const accountId = requireTotpAccountId(request?.accountId)
    if (typeof request.label !== 'string' || request.label.trim() === '' || request.label.length > 128) {
      throw invalidTotpInput('label must be 1-128 characters')
    }
    const secret = this.#bytes(TOTP_SECRET_BYTES)
    const sealedSecret = await sealTotpSecret(this.#protector, accountId, secret)
    const saved = await this.#read(() =>
      this.#store.savePendingTotp({ accountId, sealedSecret, now: this.#now() }),
    )
    if (saved === 'already-enabled') {
      throw new TotpError(TotpErrorCodes.alreadyEnabled, 'TOTP is already enabled for this account')
    }
    const { base32, uri } = totpProvisioning(secret, this.issuer, request.label)
    return new TotpEnrollmentStart(base32, uri)
  }

  /**
   * Confirms the pending enrollment with a first valid code: TOTP is enabled (that code's step counts as
   * used) together with a first set of ten recovery codes, returned once.
   */
  async confirmEnrollment(request: TotpRequestContext & { readonly code: unknown }): Promise<RecoveryCodes> {
    const { accountId, clientAddress } = this.#context(request)
    const code = normalizeTotpCode(request.code)
    const now = this.#now()
    await this.#attempt(accountId, now, clientAddress)
    const enrollment = await this.#read(() => this.#store.getTotpEnrollment(accountId))
    if (enrollment?.status !== 'pending') {
      throw new TotpError(TotpErrorCodes.notEnrolled, 'there is no pending TOTP enrollment to confirm')
    }
    const step = await this.#match(accountId, enrollment.sealedSecret, code, now, clientAddress)
    const { codes, digests } = this.#newCodes(accountId)
    const notice = await this.#notice(accountId, { type: 'factor-added', factor: 'totp' })
    const enabled = await this.#read(() =>
      this.#store.enableTotp({
        accountId,
        sealedSecret: enrollment.sealedSecret,
        step,
        recoveryCodeDigests: digests,
        now,
        ...notice,
      }),
    )
    if (!enabled) {
      throw new TotpError(TotpErrorCodes.enrollmentChanged, 'the TOTP enrollment changed; start again')
    }
    await this.#attempts.succeeded(accountId)
    this.#emit('totp.verified', defined({ accountId, purpose: 'enrollment', clientAddress }))
    this.#emit('totp.enabled', defined({ accountId, clientAddress, ...this.#notified() }))
    return codes
  }

  /**
   * Checks a code of the account's enabled TOTP, once: `totp.invalid_code` for a wrong, malformed or
   * replayed code (one answer), `totp.rate_limited`, `totp.not_enrolled`. `purpose` names the check in
   * the `totp.verified` event (default `sign_in`).
   */
  async verify(
    request: TotpRequestContext & { readonly code: unknown; readonly purpose?: string },
  ): Promise<void> {
    const { accountId, clientAddress } = this.#context(request)
    const code = normalizeTotpCode(request.code)
    const now = this.#now()
    await this.#attempt(accountId, now, clientAddress)
    const enrollment = await this.#read(() => this.#store.getTotpEnrollment(accountId))
    if (enrollment?.status !== 'enabled') {
      throw new TotpError(TotpErrorCodes.notEnrolled, 'TOTP is not enabled for this account')
    }
    const step = await this.#match(accountId, enrollment.sealedSecret, code, now, clientAddress)
    if (!(await this.#read(() => this.#store.useTotpStep({ accountId, step })))) {
      this.#emit('totp.failed', defined({ accountId, reason: 'replayed' as const, clientAddress }))
      throw invalidCode()
    }
    await this.#attempts.succeeded(accountId)
    this.#emit('totp.verified', defined({ accountId, purpose: request.purpose ?? 'sign_in', clientAddress }))
  }

  /**
   * Uses one recovery code in place of a TOTP code (under the same attempt limit); the number of codes
   * left. `totp.invalid_recovery_code` for an unknown or used code.
   */
  async redeemRecoveryCode(request: TotpRequestContext & { readonly code: unknown }): Promise<number> {
    const { accountId, clientAddress } = this.#context(request)
    const code = normalizeRecoveryCode(request.code)
    await this.#attempt(accountId, this.#now(), clientAddress)
    const redeemed =
      code !== undefined &&
      (await this.#read(() =>
        this.#store.redeemRecoveryCode({ accountId, candidates: this.#peppers.candidates(accountId, code) }),
      ))
    if (!redeemed) {
      this.#emit(
        'totp.failed',
        defined({ accountId, reason: 'invalid_recovery_code' as const, clientAddress }),
      )
      throw new TotpError(TotpErrorCodes.invalidRecoveryCode, 'the recovery code is wrong or used')
    }
    await this.#attempts.succeeded(accountId)
    const remaining = await this.#read(() => this.#store.countRecoveryCodes(accountId))
    this.#emit('recovery_code.used', defined({ accountId, remaining, clientAddress }))
    return remaining
  }

  /** A new set of ten recovery codes replaces the old one at once (ask for a step-up first). */
  async regenerateRecoveryCodes(request: TotpRequestContext): Promise<RecoveryCodes> {
    const { accountId, clientAddress } = this.#context(request)
    const { codes, digests } = this.#newCodes(accountId)
    const notice = await this.#notice(accountId, { type: 'factor-added', factor: 'recovery-codes' })
    const replaced = await this.#read(() =>
      this.#store.replaceRecoveryCodes({ accountId, digests, now: this.#now(), ...notice }),
    )
    if (!replaced) throw new TotpError(TotpErrorCodes.notEnrolled, 'TOTP is not enabled for this account')
    this.#emit('recovery_codes.regenerated', defined({ accountId, clientAddress, ...this.#notified() }))
    return codes
  }

  /** Removes the enrollment and the recovery codes (ask for a step-up first); false when there was none. */
  async disable(request: TotpRequestContext): Promise<boolean> {
    const { accountId, clientAddress } = this.#context(request)
    const notice = await this.#notice(accountId, { type: 'factor-removed', factor: 'totp' })
    const removed = await this.#read(() =>
      notice.outbox === undefined
        ? this.#store.removeTotp(accountId)
        : this.#store.removeTotp(accountId, notice),
    )
    if (removed) this.#emit('totp.disabled', defined({ accountId, clientAddress, ...this.#notified() }))
    return removed
  }

  async #match(
    accountId: string,
    sealedSecret: string,
    code: string | undefined,
    now: Date,
    clientAddress: string | undefined,
  ): Promise<number> {
    const secret = await openTotpSecret(this.#protector, accountId, sealedSecret)
    const step = code === undefined ? undefined : matchTotpStep(secret, code, now.getTime(), this.#window)
    secret.fill(0)
    if (step === undefined) {
      this.#emit('totp.failed', defined({ accountId, reason: 'invalid_code' as const, clientAddress }))
      throw invalidCode()
    }
    return step
  }

  async #attempt(accountId: string, now: Date, clientAddress: string | undefined): Promise<void> {
    try {
      await this.#attempts.attempt(accountId, now)
    } catch (error) {
      if (error instanceof TotpError && error.retryAfterSeconds !== undefined) {
        this.#emit(
          'totp.rate_limited',
          defined({ accountId, retryAfterSeconds: error.retryAfterSeconds, clientAddress }),
        )
      }
      throw error
    }
  }

  #newCodes(accountId: string): { codes: RecoveryCodes; digests: string[] } {
    const plain = Array.from({ length: RECOVERY_CODE_COUNT }, () =>
      newRecoveryCode((size) => this.#bytes(size)),
    )
    const digests = plain.map((code) =>
      this.#peppers.digest(accountId, normalizeRecoveryCode(code) as string),
    )
    if (new Set(digests).size !== digests.length) return this.#newCodes(accountId)
    return { codes: new RecoveryCodes(plain), digests }
  }

  #context(request: TotpRequestContext): { accountId: string; clientAddress: string | undefined } {
    if (typeof request !== 'object' || request === null) throw invalidTotpInput('request must be an object')
    return { accountId: requireTotpAccountId(request.accountId), clientAddress: request.clientAddress }
  }

  /** The `outbox` member of a change: its notification, when `securityNotices` is given and it has one. */
  async #notice(
    accountId: string,
    change: SecurityChange,
  ): Promise<{ readonly outbox?: readonly OutboxEntry[] }> {
    const notices = this.#notices
    if (notices === undefined) return {}
    const entries = await this.#read(() => notices.entries(accountId, change))
    return entries.length === 0 ? {} : { outbox: entries }
  }

  /** `notified: true` on the events of changes whose notification the store wrote with them. */
  #notified(): { readonly notified?: true } {
    return this.#notices === undefined ? {} : { notified: true }
  }

  async #read<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (cause) {
      if (cause instanceof TotpError && cause.code === TotpErrorCodes.invalidInput) throw cause
      throw new TotpError(TotpErrorCodes.unavailable, 'the TOTP store failed', { cause })
    }
  }

  #bytes(size: number): Uint8Array {
    let bytes: Uint8Array
    try {
      bytes = this.#random(size)
    } catch (cause) {
      throw new TotpError(TotpErrorCodes.unavailable, 'randomness failed', { cause })
    }
    if (!(bytes instanceof Uint8Array) || bytes.byteLength !== size) {
      throw new TotpError(TotpErrorCodes.unavailable, 'randomBytes returned the wrong size')
    }
    return bytes
  }

  #now(): Date {
    const now = new Date(this.#clock())
    if (Number.isNaN(now.getTime())) throw new TotpError(TotpErrorCodes.unavailable, 'the clock failed')
    return now
  }

  #emit<Type extends SecurityEventType>(type: Type, fields: SecurityEventFields[Type]): void {
    if (this.#sink === undefined) return
    const event = { type, at: this.#safeNow(), ...fields } as Parameters<SecurityEventSink>[0]
    emitSecurityEvent(this.#sink, event, this.#onSinkError)
  }

  #safeNow(): Date {
    try {
      return this.#now()
    } catch {
      return new Date()
    }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `TotpService { issuer: ${JSON.stringify(this.issuer)} }`
  }
}

function invalidCode(): TotpError {
  return new TotpError(TotpErrorCodes.invalidCode, 'the code is wrong or was already used')
}

function defined<T extends Record<string, unknown>>(fields: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  const result: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) result[key] = value
  return result as { [K in keyof T]: Exclude<T[K], undefined> }
}
