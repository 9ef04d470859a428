import type { EmailAddressNormalization } from '../accounts/email-address.js'
import type { SignInIdentifier } from '../accounts/email-requests.js'
import type { AccountStore } from '../accounts/port.js'
import type { CodeKeyRing } from '../codes/code-keys.js'
import type { CodeRandomSource } from '../codes/generate.js'
import type { OneTimeCodeStore } from '../codes/port.js'
import { integerBetween, type OptionsShape } from '../errors/options.js'
import type { LocalAccounts } from '../local-accounts/local-accounts.js'
import type { RateLimitStore } from '../local-accounts/rate-limits/rate-limit-store.js'
import type { SecondFactorGate } from '../local-accounts/second-factor.js'
import type { NotificationSettingsStore } from '../mail/notification-settings.js'
import type { MailOutboxStore } from '../mail/outbox.js'
import type { PasskeyCeremonies } from '../passkeys/ceremonies.js'
import type { OAuthTransactionProtector } from '../protection/protector.js'
import type { StepUpService } from '../step-up/service.js'
import type { AddressVerifiedListener } from './address-verified.js'
import {
  EMAIL_CHANGE_OPTION,
  type EmailChangeOptions,
  SIGN_IN_CODE_OPTION,
  type SignInCodeOptions,
} from './change-options.js'
import type { SecurityNotifier } from './notifications.js'

/** One rate limit: attempts per window. */
export interface EmailFlowRateLimit {
  readonly limit: number
  readonly windowSeconds: number
}

/** Per-address and per-client limits of the requests that send mail (sign-up, resend, reset). */
export interface EmailFlowRateLimits {
  /** Mails one address may be sent per window. Default 5 per hour. */
  readonly perAddress?: EmailFlowRateLimit
  /** Requests one client (IPv4 address or IPv6 /64) may make per window. Default 30 per hour. */
  readonly perClient?: EmailFlowRateLimit
}

/**
 * The pages of the application that links point to, as paths on `publicOrigin`. Each page reads
 * `flow` from the query and `code` from the fragment and POSTs them: a GET never consumes anything.
 */
export interface EmailFlowPages {
  /** Default `/verify-email`. */
  readonly verifyEmail?: string
  /** Default `/reset-password`. */
  readonly resetPassword?: string
  /** Default `/sign-in`. */
  readonly signIn?: string
  /** Default `/sign-up`. */
  readonly signUp?: string
}

/** How the password reset behaves. */
export interface PasswordResetSettings {
  /**
   * A reset asked for an address with no account: `notify` (default) sends it an
   * `unknown-account-reset` message (someone tried with your address); `silent` sends nothing. The
   * answer is the same either way.
   */
  readonly unknownAddress?: 'notify' | 'silent'
  /**
   * Whether the person is signed in once the password is reset: `never` (default: they sign in again
   * with the new password) or `after-second-factor` (signed in when the reset verified their TOTP code).
   */
  readonly signIn?: 'never' | 'after-second-factor'
  /** Lifetime of a reset code, 5 to 1440 minutes. Default 60. */
  readonly codeMinutes?: number
}

export interface AccountEmailOptions {
  readonly accounts: AccountStore
  /** The local accounts of the same store: passwords, screening, sign-in and the security epoch. */
  readonly local: LocalAccounts
  readonly codes: OneTimeCodeStore
  /** Where messages no stored change carries are enqueued (an existing account's sign-up notice...). */
  readonly outbox: MailOutboxStore
  readonly notificationSettings: NotificationSettingsStore
  /** Seals every message in the outbox and flow data in code records. */
  readonly protector: OAuthTransactionProtector
  /** The keys codes are digested with (`new CodeKeyRing(loadCodeKey(...))`). */
  readonly codeKeys: CodeKeyRing
  /** `https://app.example`: every link is built on it, never on a request's `Host`. */
  readonly publicOrigin: string
  /** Counters of the per-address and per-client limits (the `RateLimitStore` sign-in uses). */
  readonly rateLimits: RateLimitStore
  /**
   * The second factor of password sign-ins (the same `TotpSecondFactor` given to `LocalAccounts`): a
   * reset of an account with TOTP needs its code.
   */
  readonly secondFactor?: SecondFactorGate
  /**
   * The passkey ceremonies (`PasskeyService` of `@portcullis/passkeys`): a reset of an account with a
   * passkey then asks an assertion of one of its passkeys before the new password is written. Without
   * them such a reset is refused (`account_email.second_factor_required`).
   */
  readonly passkeys?: PasskeyCeremonies
  /** How the application signs people in: the `signInWith` given to `LocalAccounts`. Default `['username']`. */
  readonly signInWith?: readonly SignInIdentifier[]
  /** The `emailNormalization` given to `LocalAccounts`. */
  readonly emailNormalization?: EmailAddressNormalization
  readonly pages?: EmailFlowPages
  readonly limits?: EmailFlowRateLimits
  readonly passwordReset?: PasswordResetSettings
  /** Lifetime of a verification code, 10 to 1440 minutes. Default 1440 (24 h). */
  readonly verificationCodeMinutes?: number
  /** Wrong codes a code allows before it is deleted, 1 to 10. Default 5. */
  readonly maxAttempts?: number
  /** Digits of a code, 6 to 8. Default 6. */
  readonly codeLength?: number
  /** The notifier of security changes; default one over these stores. */
  readonly notifier?: SecurityNotifier
  /** An absolute URL of the page where a person reviews their account's security (in notifications). */
  readonly reviewLink?: string
  /** The person's language for the templates; default `en`. */
  readonly locale?: (accountId: string | null) => string | Promise<string>
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number
  readonly randomBytes?: CodeRandomSource
  /** The step-up credentials an email change consumes (purpose `email-change`); without it, no email change. */
  readonly stepUp?: StepUpService
  /** Email change and its undo link. */
  readonly emailChange?: EmailChangeOptions
  /** Sign-in by email code (off unless `enabled`). */
  readonly signInCode?: SignInCodeOptions
  /**
   * Told once an address is verified and committed (sign-up verification, an added address, a completed
   * email change): `AutomaticInvitations` of `@portcullis/core/organization-domains`, for example. Its
   * failure never fails the verification: it is reported as `email.address_verified_listener_failed`.
   */
  readonly addressVerified?: AddressVerifiedListener
}

const CODE = 'account_email.invalid_config'
const limitShape = {
  limit: { required: true, kind: 'number', check: integerBetween(1, 1_000_000), code: CODE },
  windowSeconds: { required: true, kind: 'number', check: integerBetween(1, 86_400), code: CODE },
} as const
const path = (value: unknown) =>
  typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !/[?#\s]/.test(value)
    ? undefined
    : 'must be a path starting with one "/", without query or fragment'

export const ACCOUNT_EMAIL_OPTIONS: OptionsShape<AccountEmailOptions> = {
  accounts: { required: true, kind: 'object', code: CODE },
  local: { required: true, kind: 'object', code: CODE },
  codes: { required: true, kind: 'object', code: CODE },
  outbox: { required: true, kind: 'object', code: CODE },
  notificationSettings: { required: true, kind: 'object', code: CODE },
  protector: { required: true, kind: 'object', code: CODE },
  codeKeys: { required: true, kind: 'object', code: CODE },
  publicOrigin: { required: true, kind: 'string', code: CODE },
  rateLimits: { required: true, kind: 'object', code: CODE },
  secondFactor: { kind: 'object', code: CODE },
  passkeys: {
    kind: 'object',
    code: CODE,
    check: (value) =>
      typeof (value as PasskeyCeremonies).beginAuthentication === 'function' &&
      typeof (value as PasskeyCeremonies).finishAuthentication === 'function'
        ? undefined
        : 'must have beginAuthentication and finishAuthentication',
  },
  signInWith: { kind: 'array', code: CODE },
  emailNormalization: { kind: 'object', code: CODE },
  pages: {
    kind: 'object',
    shape: {
      verifyEmail: { kind: 'string', check: path, code: CODE },
      resetPassword: { kind: 'string', check: path, code: CODE },
      signIn: { kind: 'string', check: path, code: CODE },
      signUp: { kind: 'string', check: path, code: CODE },
    },
  },
  limits: {
    kind: 'object',
    shape: {
      perAddress: { kind: 'object', shape: limitShape },
      perClient: { kind: 'object', shape: limitShape },
    },
  },
  passwordReset: {
    kind: 'object',
    shape: {
      unknownAddress: {
        kind: 'string',
        check: (value) => (value === 'notify' || value === 'silent' ? undefined : 'must be notify or silent'),
        code: CODE,
      },
      signIn: {
        kind: 'string',
        check: (value) =>
          value === 'never' || value === 'after-second-factor'
            ? undefined
            : 'must be never or after-second-factor',
        code: CODE,
      },
      codeMinutes: { kind: 'number', check: integerBetween(5, 1440), code: CODE },
    },
  },
  verificationCodeMinutes: { kind: 'number', check: integerBetween(10, 1440), code: CODE },
  maxAttempts: { kind: 'number', check: integerBetween(1, 10), code: CODE },
  codeLength: { kind: 'number', check: integerBetween(6, 8), code: CODE },
  notifier: { kind: 'object', code: CODE },
  reviewLink: { kind: 'string', code: CODE },
  locale: { kind: 'function', code: CODE },
  clock: { kind: 'function', code: CODE },
  randomBytes: { kind: 'function', code: CODE },
  stepUp: { kind: 'object', code: CODE },
  emailChange: EMAIL_CHANGE_OPTION,
  signInCode: SIGN_IN_CODE_OPTION,
  addressVerified: {
    kind: 'object',
    code: CODE,
    check: (value) =>
      typeof (value as AddressVerifiedListener).addressVerified === 'function'
        ? undefined
        : 'must have an addressVerified method',
  },
}
