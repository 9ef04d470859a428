import type { AccountSession } from '../accounts/service.js'
import { readOptions } from '../errors/options.js'
import type { LocalCredentials } from '../local-accounts/local-credentials.js'
import type { PendingSecondFactor } from '../local-accounts/second-factor.js'
import type { LocalRequestInfo, LocalSignIn, SignInOptions } from '../local-accounts/sign-in.js'
import { SECURITY_CHANGE_TYPES } from '../mail/messages.js'
import type { NotificationSettingsStore } from '../mail/notification-settings.js'
import { ACCOUNT_EMAIL_OPTIONS, type AccountEmailOptions } from './account-email-options.js'
import {
  AccountAddresses,
  type AccountAddressView,
  type AddedAddress,
  type ChangedAddresses,
} from './addresses.js'
import { readFields, readFlowAndCode } from './bodies.js'
import { emailChangeSettings, signInCodeSettings } from './change-options.js'
import { type CompletedEmailChange, EmailChange } from './email-change.js'
import { AccountEmailError, AccountEmailErrorCodes, storeCall } from './errors.js'
import { type AccountEmailParts, accountEmailParts } from './flow-context.js'
import type { SecurityNotifier } from './notifications.js'
import { type NotificationSettingsView, readOptOuts } from './notifications.js'
import {
  completeResetSecondFactor,
  type ResetCompleted,
  type ResetOptions,
  type ResetPendingSecondFactor,
  requestPasswordReset,
  resetPassword,
} from './password-reset.js'
import { completeResetPasskey, type ResetPendingPasskey } from './reset-passkey.js'
import { SignInCode } from './sign-in-code.js'
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
  readonly #change: EmailChange
  readonly #signInCode: SignInCode
  readonly #addresses: AccountAddresses
  readonly #notificationSettings: NotificationSettingsStore

  constructor(options: AccountEmailOptions) {
    readOptions(options, 'AccountEmail', ACCOUNT_EMAIL_OPTIONS)
    this.#parts = accountEmailParts(options)
    this.notifier = this.#parts.notifier
    this.#notificationSettings = options.notificationSettings
    this.#change = new EmailChange(
      this.#parts,
      options.stepUp,
      emailChangeSettings(options.emailChange, this.#parts.maxAttempts),
    )
    this.#signInCode = new SignInCode(
      this.#parts,
      signInCodeSettings(options.signInCode, this.#parts.maxAttempts),
      this.#parts.limiter,
      this.#parts.secondFactor,
    )
    this.#addresses = new AccountAddresses(this.#parts, options.stepUp)
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
    return verifyEmail(this.#parts, body, this.#parts.local.clientAddress(info), info.impersonator)
  }

  /** `{ flow }`: a new verification code for the flow (the old one stops working); a new flow handle. */
  resendVerification(body: unknown, info: LocalRequestInfo = {}): Promise<{ readonly flow: string }> {
    return resendVerification(this.#parts, body, {
      clientAddress: this.#parts.local.clientAddress(info),
      impersonator: info.impersonator,
    })
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
  ): Promise<ResetCompleted | ResetPendingSecondFactor | ResetPendingPasskey> {
    return resetPassword(this.#parts, body, options)
  }

  /** `{ resetToken, pendingToken, code | recoveryCode }`: the second step of a reset of a TOTP account. */
  completeResetSecondFactor(body: unknown, options: ResetOptions = {}): Promise<ResetCompleted> {
    return completeResetSecondFactor(this.#parts, body, options)
  }

  /**
   * `{ resetToken, response }` with `options.browserBinding`: the second step of a reset of an account
   * with a passkey, the assertion answering the challenge the first step started.
   */
  completeResetPasskey(body: unknown, options: ResetOptions = {}): Promise<ResetCompleted> {
    return completeResetPasskey(this.#parts, body, options)
  }

  // --- email change and undo (email-change.ts) ---

  /**
   * `{ email }`, with an `email-change` step-up credential: a code to the new address and an undo link
   * to the old one; nothing about the account changes yet.
   */
  async requestEmailChange(request: {
    readonly session: AccountSession
    readonly stepUpToken: string
    readonly body: unknown
    readonly request?: LocalRequestInfo
  }): Promise<{ readonly flow: string; readonly expiresAt: Date }> {
    const fields = readFields(request.body, ['email'])
    const requested = await this.#change.request({ ...request, newAddress: fields.email })
    return Object.freeze({ flow: requested.flowId, expiresAt: requested.expiresAt })
  }

  /** `{ flow, code }` by the signed-in account that asked: the new address is the primary now. */
  completeEmailChange(request: {
    readonly session: AccountSession
    readonly body: unknown
    readonly credentials: LocalCredentials
    readonly request?: LocalRequestInfo
  }): Promise<CompletedEmailChange> {
    const fields = readFlowAndCode(readFields(request.body, ['flow', 'code']))
    return this.#change.complete({ ...request, flowId: fields.flow, code: fields.code })
  }

  /** `{ flow, code }` of the undo link (no session needed): the old address is the primary again. */
  undoEmailChange(body: unknown, info: LocalRequestInfo = {}): Promise<{ readonly address: string }> {
    const fields = readFlowAndCode(readFields(body, ['flow', 'code']))
    return this.#change.undo({ flowId: fields.flow, code: fields.code, request: info })
  }

  // --- the signed-in account's addresses (addresses.ts) ---

  /** The signed-in account's addresses, primary first. */
  listAddresses(session: AccountSession): Promise<readonly AccountAddressView[]> {
    return this.#addresses.list(session.accountId)
  }

  /**
   * `{ email }`, with an `email-change` step-up credential: adds an unverified address and mails it a
   * verification code (answered `flow`, for `verifyEmail` and `resendVerification`).
   */
  addAddress(request: SteppedUpAddressRequest): Promise<AddedAddress> {
    const fields = readFields(request.body, ['email'])
    return this.#addresses.add({ ...request, address: fields.email })
  }

  /** `{ email }`: a new verification code for an unverified address of the signed-in account. */
  resendAddressVerification(request: {
    readonly session: AccountSession
    readonly body: unknown
    readonly request?: LocalRequestInfo
  }): Promise<{ readonly flow: string }> {
    const fields = readFields(request.body, ['email'])
    return this.#addresses.resend({ ...request, address: fields.email })
  }

  /** `{ email }`, with an `email-change` step-up credential: a verified address becomes the primary. */
  makeAddressPrimary(request: SteppedUpAddressRequest): Promise<ChangedAddresses> {
    const fields = readFields(request.body, ['email'])
    return this.#addresses.makePrimary({ ...request, address: fields.email })
  }

  /** `{ email }`, with an `email-change` step-up credential: removes an address of the account. */
  removeAddress(request: SteppedUpAddressRequest): Promise<ChangedAddresses> {
    const fields = readFields(request.body, ['email'])
    return this.#addresses.remove({ ...request, address: fields.email })
  }

  // --- sign-in by email code (sign-in-code.ts) ---

  /** Whether sign-in by email code is turned on (`signInCode: { enabled: true }`). */
  get signInCodeEnabled(): boolean {
    return this.#signInCode.enabled
  }

  /** `{ email }`: the same answer for every address; only a verified address of an account is mailed. */
  async requestSignInCode(
    body: unknown,
    info: LocalRequestInfo = {},
  ): Promise<{ readonly flow: string; readonly expiresAt: Date }> {
    this.#signInCode.requireEnabled()
    const fields = readFields(body, ['email'])
    const requested = await this.#signInCode.request({
      address: fields.email,
      clientAddress: this.#parts.local.clientAddress(info),
    })
    return Object.freeze({ flow: requested.flowId, expiresAt: requested.expiresAt })
  }

  /** `{ flow, code }`: signs in, or answers that the account's second factor is next. */
  signInWithCode(body: unknown, options: SignInOptions = {}): Promise<LocalSignIn | PendingSecondFactor> {
    this.#signInCode.requireEnabled()
    const fields = readFlowAndCode(readFields(body, ['flow', 'code']))
    return this.#signInCode.complete({ flowId: fields.flow, code: fields.code, options })
  }

  // --- notification settings (notifications.ts) ---

  /** Every kind of security notification, and those the account turned off. */
  async notificationSettings(accountId: string): Promise<NotificationSettingsView> {
    const optOuts = await storeCall(() => this.#notificationSettings.getOptOuts(accountId))
    return Object.freeze({ kinds: SECURITY_CHANGE_TYPES, optOuts })
  }

  /** `{ optOuts }`: replaces the kinds the account turned off (absent or empty: every kind on). */
  async setNotificationSettings(accountId: string, body: unknown): Promise<NotificationSettingsView> {
    const optOuts = readOptOuts(body)
    const now = new Date(this.#parts.clock())
    const stored = await storeCall(() => this.#notificationSettings.setOptOuts({ accountId, optOuts, now }))
    if (!stored) throw new AccountEmailError(AccountEmailErrorCodes.accountGone, 'no such account')
    return Object.freeze({ kinds: SECURITY_CHANGE_TYPES, optOuts })
  }
}

/** What the address changes that spend a step-up credential take. */
export interface SteppedUpAddressRequest {
  readonly session: AccountSession
  readonly stepUpToken: string
  readonly body: unknown
  readonly credentials: LocalCredentials
  readonly request?: LocalRequestInfo
}
