import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/** Stable codes of the TOTP second factor and recovery codes. */
export const TotpErrorCodes = {
  /** A malformed argument (account id, step, digest, date) or request body member. */
  invalidInput: 'totp.invalid_input',
  /** A wrong, expired, malformed or already used code (one answer for all of them). 401. */
  invalidCode: 'totp.invalid_code',
  /** A wrong or already used recovery code. 401. */
  invalidRecoveryCode: 'totp.invalid_recovery_code',
  /** The pending token of a second sign-in step is unknown, expired or spent. 401. */
  pendingInvalid: 'totp.pending_invalid',
  /** Too many second-factor attempts for the account; `retryAfterSeconds` says when to retry. 429. */
  rateLimited: 'totp.rate_limited',
  /** The account has no enabled TOTP (or, for a confirmation, no pending enrollment). 409. */
  notEnrolled: 'totp.not_enrolled',
  /** The account already has TOTP enabled: disable it before enrolling again. 409. */
  alreadyEnabled: 'totp.already_enabled',
  /** The enrollment changed while it was being confirmed (a concurrent enrollment won). 409. */
  enrollmentChanged: 'totp.enrollment_changed',
  /** The sealed secret could not be opened, randomness failed, or the store failed. 503. */
  unavailable: 'totp.unavailable',
} as const

export type TotpErrorCode = (typeof TotpErrorCodes)[keyof typeof TotpErrorCodes]

const CLASS_OF: Readonly<Record<TotpErrorCode, ErrorClass>> = {
  'totp.invalid_input': 'invalid-input',
  'totp.invalid_code': 'unauthenticated',
  'totp.invalid_recovery_code': 'unauthenticated',
  'totp.pending_invalid': 'unauthenticated',
  'totp.rate_limited': 'rate-limited',
  'totp.not_enrolled': 'conflict',
  'totp.already_enabled': 'conflict',
  'totp.enrollment_changed': 'conflict',
  'totp.unavailable': 'unavailable',
}

export interface TotpErrorOptions extends PortcullisErrorOptions {
  /** For `totp.rate_limited`: seconds until the window ends (`Retry-After`). */
  readonly retryAfterSeconds?: number
}

/** Every deliberate failure of TOTP and recovery codes. Messages never hold a secret, code or digest. */
export class TotpError extends PortcullisError {
  declare readonly code: TotpErrorCode
  declare readonly retryAfterSeconds?: number

  constructor(code: TotpErrorCode, message: string, options: TotpErrorOptions = {}) {
    super(code, CLASS_OF[code], message, options)
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds
  }

  override toJSON(): ReturnType<PortcullisError['toJSON']> & { retryAfterSeconds?: number } {
    const json = super.toJSON()
    return this.retryAfterSeconds === undefined
      ? json
      : { ...json, retryAfterSeconds: this.retryAfterSeconds }
  }
}

export function invalidTotpInput(message: string): TotpError {
  return new TotpError(TotpErrorCodes.invalidInput, message)
}
