import { readOptions } from '../errors/options.js'
import type { LocalRequestInfo } from '../local-accounts/sign-in.js'
import { ACCOUNT_EMAIL_OPTIONS, type AccountEmailOptions } from './account-email-options.js'
import { type AccountEmailParts, accountEmailParts } from './flow-context.js'
import type { SecurityNotifier } from './notifications.js'
import {
  completeResetSecondFactor,
  type ResetCompleted,
  type ResetOptions,
  type ResetPendingSecondFactor,
  requestPasswordReset,
  resetPassword,
} from './password-reset.js'
import { type SignUpAccepted, signUp } from './sign-up.js'
import { resendVerification, verifyEmail } from './verification.js'

/**
 * The account flows that go through a person's mail, framework-neutral (the HTTP layer's
 * `accountEmailRouteTable` calls these): sign-up with verification, email verification and resend,
 * password reset (with the account's second factor), and, in their own files, email change with undo,
 * sign-in by email code and security notifications. Every message goes through the outbox in the same
 * transaction as the change that causes it; links are built on `publicOrigin` only.
 */
export class AccountEmail {
  /** The notifier of security changes these flows (and the application) use. */
  readonly notifier: SecurityNotifier
  readonly #parts: AccountEmailParts

  constructor(options: AccountEmailOptions) {
    readOptions(options, 'AccountEmail', ACCOUNT_EMAIL_OPTIONS)
    this.#parts = accountEmailParts(options)
    this.notifier = this.#parts.notifier
  }

  /** What every flow shares (stores, code arithmetic, settings): for the flows of other files. */
  get parts(): AccountEmailParts {
    return this.#parts
  }

  // --- sign-up and verification (sign-up.ts, verification.ts) ---

  /** `{ email, password, inviteCode? }`: 202 with a flow handle, whether or not the address has an account. */
  signUp(body: unknown, info: LocalRequestInfo = {}): Promise<SignUpAccepted> {
    return signUp(this.#parts, body, this.#parts.local.clientAddress(info))
  }

  /** `{ flow, code }`: verifies the address the code was sent to. */
  verifyEmail(
    body: unknown,
    info: LocalRequestInfo = {},
  ): Promise<{ readonly accountId: string; readonly address: string }> {
    return verifyEmail(this.#parts, body, this.#parts.local.clientAddress(info))
  }

  /** `{ flow }`: a new verification code for the flow (the old one stops working); a new flow handle. */
  resendVerification(body: unknown, info: LocalRequestInfo = {}): Promise<{ readonly flow: string }> {
    return resendVerification(this.#parts, body, { clientAddress: this.#parts.local.clientAddress(info) })
  }

  // --- password reset (password-reset.ts) ---

  /** `{ email }`: a reset code to a known address, the same answer for any address. */
  requestPasswordReset(body: unknown, info: LocalRequestInfo = {}): Promise<{ readonly flow: string }> {
    return requestPasswordReset(this.#parts, body, this.#parts.local.clientAddress(info))
  }

  /** `{ flow, code, password }`: resets, or answers that the account's second factor is next. */
  resetPassword(
    body: unknown,
    options: ResetOptions = {},
  ): Promise<ResetCompleted | ResetPendingSecondFactor> {
    return resetPassword(this.#parts, body, options)
  }

  /** `{ resetToken, pendingToken, code | recoveryCode }`: the second step of a reset of a TOTP account. */
  completeResetSecondFactor(body: unknown, options: ResetOptions = {}): Promise<ResetCompleted> {
    return completeResetSecondFactor(this.#parts, body, options)
  }

  // --- email change and undo (email-change.ts) ---

  // --- sign-in by email code (sign-in-code.ts) ---

  // --- notification settings (notifications.ts) ---
}
