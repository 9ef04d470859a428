import type { OptionsShape } from '@portcullis/core/errors'
import type {
  SecurityEventSink,
  SecurityEventSinkErrorHandler,
  SecurityNoticeSource,
} from '@portcullis/core/local-accounts'
import type { PasskeyChallengeStore, PasskeyStore } from '@portcullis/core/passkeys'

export interface PasskeyServiceOptions {
  /** The relying party id: your registrable domain or a host under it (`app.example`), checked exactly. */
  readonly rpId: string
  /** What authenticators show as the site's name. */
  readonly rpName: string
  /** Every origin ceremonies may come from (`https://app.example`), compared exactly. */
  readonly origins: readonly string[]
  readonly passkeys: PasskeyStore
  readonly challenges: PasskeyChallengeStore
  /** HMAC key for the challenge, browser-binding and session digests: at least 32 random bytes. */
  readonly pepper: Uint8Array
  /** Challenge lifetime, 30 to 600 seconds; default 300. */
  readonly challengeTtlSeconds?: number
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly clock?: () => number
  readonly randomBytes?: (size: number) => Uint8Array
  readonly events?: SecurityEventSink
  readonly onEventSinkError?: SecurityEventSinkErrorHandler
  /**
   * Writes the security notification of a passkey added or removed in the store's transaction (the
   * application's `SecurityNotifier` of `@portcullis/core/account-email`; the store needs the outbox:
   * `PostgresPasskeyStore`, or `MemoryPasskeyStore({ outbox })`). The events then carry
   * `notified: true`, so the notifier's sink does not enqueue them again.
   */
  readonly securityNotices?: SecurityNoticeSource
}

/** What `readOptions` checks of each `PasskeyServiceOptions` member. */
export const PASSKEY_SERVICE_OPTIONS: OptionsShape<PasskeyServiceOptions> = {
  rpId: { required: true, kind: 'string', code: 'passkey.invalid_config' },
  rpName: { required: true, kind: 'string', code: 'passkey.invalid_config' },
  origins: { required: true, kind: 'array', elements: { kind: 'string' }, code: 'passkey.invalid_config' },
  passkeys: { required: true, kind: 'object', code: 'passkey.invalid_config' },
  challenges: { required: true, kind: 'object', code: 'passkey.invalid_config' },
  pepper: { required: true, kind: 'bytes', code: 'passkey.invalid_config' },
  challengeTtlSeconds: { kind: 'number', code: 'passkey.invalid_config' },
  clock: { kind: 'function', code: 'passkey.invalid_config' },
  randomBytes: { kind: 'function', code: 'passkey.invalid_config' },
  events: { kind: 'function', code: 'passkey.invalid_config' },
  onEventSinkError: { kind: 'function', code: 'passkey.invalid_config' },
  securityNotices: {
    kind: 'object',
    code: 'passkey.invalid_config',
    check: (value) =>
      typeof (value as SecurityNoticeSource).entries === 'function' ? undefined : 'must have entries',
  },
}
