import type { TotpEnrollmentStart } from './enrollment-start.js'
import type { RecoveryCodes } from './recovery-codes.js'

/** Who is asking, for limits and events. */
export interface TotpRequestContext {
  readonly accountId: string
  readonly clientAddress?: string | undefined
}

/** An account's second-factor state, for its settings page. */
export interface TotpStatus {
  readonly enabled: boolean
  readonly pending: boolean
  /** Unused recovery codes left (0 while not enabled). */
  readonly recoveryCodes: number
}

/**
 * The TOTP second factor as `TotpSecondFactor` and the HTTP layer use it. `TotpService` from
 * `@portcullis/totp` implements it (with `otpauth`); core only depends on this shape.
 */
export interface TotpFactor {
  isEnabled(accountId: string): Promise<boolean>
  status(accountId: string): Promise<TotpStatus>
  beginEnrollment(request: {
    readonly accountId: string
    readonly label: string
  }): Promise<TotpEnrollmentStart>
  confirmEnrollment(request: TotpRequestContext & { readonly code: unknown }): Promise<RecoveryCodes>
  verify(request: TotpRequestContext & { readonly code: unknown; readonly purpose?: string }): Promise<void>
  /** Spends one recovery code; answers how many are left. */
  redeemRecoveryCode(request: TotpRequestContext & { readonly code: unknown }): Promise<number>
  regenerateRecoveryCodes(request: TotpRequestContext): Promise<RecoveryCodes>
  /** False when TOTP was not enrolled. */
  disable(request: TotpRequestContext): Promise<boolean>
}
