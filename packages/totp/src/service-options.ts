import type { OptionsShape } from '@portcullis/core/errors'
import type {
  RateLimitStore,
  SecurityEventSink,
  SecurityEventSinkErrorHandler,
  SecurityNoticeSource,
} from '@portcullis/core/local-accounts'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import type { RecoveryCodePepper, TotpStore } from '@portcullis/core/totp'
import type { TotpAttemptLimit } from './attempts.js'

export interface TotpServiceOptions {
  readonly store: TotpStore
  /** Seals each secret (AES-256-GCM), bound to its account. */
  readonly protector: OAuthTransactionProtector
  /** The shared attempt counters (the same store local accounts use). */
  readonly rateLimits: RateLimitStore
  /** Digests recovery codes; `retained` versions still redeem codes of older sets. */
  readonly recoveryCodePeppers: {
    readonly active: RecoveryCodePepper
    readonly retained?: readonly RecoveryCodePepper[]
  }
  /** The name authenticator apps show beside the account (`issuer` of the otpauth URI). */
  readonly issuer: string
  /** Second-factor attempts per account and window; default 5 per 5 minutes. */
  readonly attempts?: TotpAttemptLimit
  /** Steps accepted either side of the current one; default 1 (RFC 6238 section 5.2), at most 2. */
  readonly window?: number
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly clock?: () => number
  readonly randomBytes?: (size: number) => Uint8Array
  readonly events?: SecurityEventSink
  readonly onEventSinkError?: SecurityEventSinkErrorHandler
  /**
   * Writes the security notification of enabling, disabling and new recovery codes in the store's
   * transaction (the application's `SecurityNotifier` of `@portcullis/core/account-email`; the store
   * needs the outbox: `PostgresTotpStore`, or `MemoryTotpStore({ outbox })`). The events then carry
   * `notified: true`, so the notifier's sink does not enqueue them again.
   */
  readonly securityNotices?: SecurityNoticeSource
}

/** What `readOptions` checks of each `TotpServiceOptions` member. */
export const TOTP_SERVICE_OPTIONS: OptionsShape<TotpServiceOptions> = {
  store: { required: true, kind: 'object', code: 'totp.invalid_config' },
  protector: { required: true, kind: 'object', code: 'totp.invalid_config' },
  rateLimits: { required: true, kind: 'object', code: 'totp.invalid_config' },
  recoveryCodePeppers: { required: true, kind: 'object', code: 'totp.invalid_config' },
  issuer: { required: true, kind: 'string', code: 'totp.invalid_config' },
  attempts: { kind: 'object', code: 'totp.invalid_config' },
  window: { kind: 'number', code: 'totp.invalid_config' },
  clock: { kind: 'function', code: 'totp.invalid_config' },
  randomBytes: { kind: 'function', code: 'totp.invalid_config' },
  events: { kind: 'function', code: 'totp.invalid_config' },
  onEventSinkError: { kind: 'function', code: 'totp.invalid_config' },
  securityNotices: {
    kind: 'object',
    code: 'totp.invalid_config',
    check: (value) =>
      typeof (value as SecurityNoticeSource).entries === 'function' ? undefined : 'must have entries',
  },
}
