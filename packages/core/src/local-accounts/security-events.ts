import type { AccountLifecycleEventFields } from './account-lifecycle-events.js'
import type { CsrfRefusalReason } from './sessions/csrf.js'

/** Why a sign-in failed. `unknown_account` and `bad_password` look identical to the client. */
export type LoginFailureReason =
  | 'unknown_account'
  | 'bad_password'
  | 'inactive_account'
  | 'invalid_input'
  | 'hashing_busy'

/** Why a session ended before its expiry. */
export type SessionRevocationReason =
  | 'logout'
  | 'revoked_by_account'
  | 'revoked_by_admin'
  | 'epoch_bumped'
  | 'backchannel_logout'

/** Why an account's security epoch moved (which invalidates its sessions and tokens). */
export type EpochBumpReason =
  | 'password_changed'
  | 'password_reset'
  | 'password_removed'
  | 'identity_unlinked'
  | 'account_disabled'
  | 'sign_out_everywhere'
  | 'admin'
  | 'email_changed'
  | 'email_change_undone'

/**
 * The fields of each security event, by `type`. Later capabilities add their own entries here (for
 * example `oauth.*` events); `SecurityEvent` follows automatically. Only non-secret fields belong here:
 * account ids, session *handle* ids (never the session id or cookie), refresh token family ids, client
 * addresses and reason codes. Passwords, tokens, digests, usernames as typed and key material never do.
 */
export interface SecurityEventFields extends AccountLifecycleEventFields {
  'login.succeeded': {
    readonly accountId: string
    readonly clientAddress?: string
    /** The `User-Agent` of the sign-in, bounded as a session record keeps it. */
    readonly userAgent?: string
    /** How the person signed in: the RFC 8176 `amr` values, space-separated (`pwd`, `pwd otp`, `hwk user`). */
    readonly amr?: string
  }
  'login.failed': {
    readonly reason: LoginFailureReason
    /** Present when the account is known (never for `unknown_account`). */
    readonly accountId?: string
    readonly clientAddress?: string
    /** The `User-Agent` of the attempt, bounded as `login.succeeded` carries it (the log keeps the parsed device). */
    readonly userAgent?: string
  }
  'login.rate_limited': {
    readonly retryAfterSeconds: number
    readonly accountId?: string
    readonly clientAddress?: string
  }
  'session.created': {
    readonly accountId: string
    readonly sessionHandle: string
    readonly clientAddress?: string
    /** The `User-Agent` the session was created with, as the session store keeps it (bounded). */
    readonly userAgent?: string
  }
  'session.revoked': {
    readonly accountId: string
    readonly sessionHandle: string
    readonly reason: SessionRevocationReason
    readonly clientAddress?: string
    /** The administrator, when an impersonation of the account ended the session. */
    readonly actorId?: string
    /** The impersonation that ended the session. */
    readonly impersonationId?: string
  }
  'refresh.reuse_detected': {
    readonly accountId: string
    readonly familyId: string
    readonly clientAddress?: string
  }
  'password.changed': { readonly accountId: string; readonly clientAddress?: string }
  'epoch.bumped': {
    readonly accountId: string
    /** The new epoch. */
    readonly epoch: number
    readonly reason: EpochBumpReason
    /** The administrator, when an impersonation of the account moved the epoch. */
    readonly actorId?: string
    /** The impersonation that moved the epoch. */
    readonly impersonationId?: string
  }
  'csrf.refused': {
    readonly reason: CsrfRefusalReason
    readonly method: string
    /** The account of the session the refused request carried (its cookie), when it names a live one. */
    readonly accountId?: string
    /** That session's handle (an impersonation session's marks the event with its administrator). */
    readonly sessionHandle?: string
    readonly clientAddress?: string
    /** The administrator, when the request came from an impersonation of the account. */
    readonly actorId?: string
    /** That impersonation. */
    readonly impersonationId?: string
  }
  'step_up.issued': {
    readonly accountId: string
    readonly purpose: string
    readonly sessionHandle?: string
  }
  'step_up.consumed': {
    readonly accountId: string
    readonly purpose: string
    readonly sessionHandle?: string
  }
  /** An OAuth / OIDC sign-in completed (`provisioned`: the account was created by it). */
  'oauth.signed_in': { readonly accountId: string; readonly provider: string; readonly provisioned: boolean }
  /** A provider identity was linked (`relinked`: the same identity again). */
  'oauth.linked': {
    readonly accountId: string
    readonly provider: string
    readonly relinked: boolean
    /**
     * The security notification was written with the change, in its transaction (the lifecycle was
     * given `securityNotices`): a `SecurityNotifier` sink does not enqueue another.
     */
    readonly notified?: boolean
  }
  'oauth.unlinked': {
    readonly accountId: string
    readonly provider: string
    /** As for `oauth.linked`: the notification was written in the change's transaction. */
    readonly notified?: boolean
  }
  /** A scope upgrade of a link was granted. */
  'oauth.scopes_upgraded': { readonly accountId: string; readonly provider: string }
  /** Retained provider tokens were revoked (`pending`: an upstream failure was staged for retry). */
  'oauth.tokens_revoked': { readonly accountId: string; readonly provider: string; readonly pending: boolean }
  /** The browser proved control of the linked identity (no freshness, no credential). */
  'oauth.revalidated': { readonly accountId: string; readonly provider: string }
  /** A provider reauthentication for `purpose` succeeded and issued a step-up credential. */
  'oauth.reauthenticated': { readonly accountId: string; readonly provider: string; readonly purpose: string }
  /** An OIDC back-channel logout of the provider ended `sessions` local sessions. */
  'oauth.backchannel_logout': { readonly provider: string; readonly sessions: number }
  /** A back-channel logout request was refused (`reason`: which check failed; never a token or claim). */
  'oauth.backchannel_logout_refused': { readonly provider: string; readonly reason: string }
  /** A password sign-in method was added to an account that signed in with provider identities only. */
  'account.password_added': { readonly accountId: string; readonly clientAddress?: string }
  /** The account's password sign-in method was removed (the epoch moved too). */
  'account.password_removed': { readonly accountId: string; readonly clientAddress?: string }
  /** The account was disabled or enabled again. */
  'account.status_changed': { readonly accountId: string; readonly status: 'active' | 'disabled' }
  /**
   * The account and everything of it were deleted. `stagedRevocations`: retained provider tokens handed
   * to the revocation retry queue first (revoked at the provider by `drainRevocationRetries`).
   */
  'account.deleted': {
    readonly accountId: string
    readonly stagedRevocations: number
    readonly clientAddress?: string
  }
  /** A TOTP enrollment was confirmed with its first code: the account now has a second factor. */
  'totp.enabled': {
    readonly accountId: string
    readonly clientAddress?: string
    /**
     * The security notification was written with the change, in its transaction (the service was given
     * `securityNotices`): a `SecurityNotifier` sink does not enqueue another.
     */
    readonly notified?: boolean
  }
  /** The account's TOTP enrollment and recovery codes were removed. */
  'totp.disabled': {
    readonly accountId: string
    readonly clientAddress?: string
    /**
     * The security notification was written with the change, in its transaction (the service was given
     * `securityNotices`): a `SecurityNotifier` sink does not enqueue another.
     */
    readonly notified?: boolean
  }
  /** A TOTP code was accepted (`purpose`: `enrollment`, `sign_in` or the application's own). */
  'totp.verified': { readonly accountId: string; readonly purpose: string; readonly clientAddress?: string }
  /** A second-factor code was refused: wrong, malformed, or a replay of a used time step. */
  'totp.failed': {
    readonly accountId: string
    readonly reason: 'invalid_code' | 'replayed' | 'invalid_recovery_code'
    readonly clientAddress?: string
  }
  'totp.rate_limited': {
    readonly accountId: string
    readonly retryAfterSeconds: number
    readonly clientAddress?: string
  }
  /** A recovery code was used; `remaining` unused codes are left. */
  'recovery_code.used': {
    readonly accountId: string
    readonly remaining: number
    readonly clientAddress?: string
  }
  /** A new set of recovery codes replaced the old one. */
  'recovery_codes.regenerated': {
    readonly accountId: string
    readonly clientAddress?: string
    /**
     * The security notification was written with the change, in its transaction (the service was given
     * `securityNotices`): a `SecurityNotifier` sink does not enqueue another.
     */
    readonly notified?: boolean
  }
  /** A password sign-in of an account with a second factor stopped at the second step (no session yet). */
  'second_factor.required': { readonly accountId: string; readonly clientAddress?: string }
  /** A passkey was registered to the account (`credentialId`: the public credential id, base64url). */
  'passkey.registered': {
    readonly accountId: string
    readonly credentialId: string
    /**
     * The security notification was written with the change, in its transaction (the service was given
     * `securityNotices`): a `SecurityNotifier` sink does not enqueue another.
     */
    readonly notified?: boolean
  }
  'passkey.removed': {
    readonly accountId: string
    readonly credentialId: string
    /**
     * The security notification was written with the change, in its transaction (the service was given
     * `securityNotices`): a `SecurityNotifier` sink does not enqueue another.
     */
    readonly notified?: boolean
  }
  /** A passkey assertion succeeded (`ceremony`: `sign_in` or `step_up`). */
  'passkey.used': {
    readonly accountId: string
    readonly credentialId: string
    readonly ceremony: 'sign_in' | 'step_up'
    readonly clientAddress?: string
  }
  /** A passkey ceremony was refused (wrong origin or RP ID, unknown challenge, bad signature, ...). */
  'passkey.failed': {
    readonly reason: PasskeyFailureReason
    readonly accountId?: string
    readonly credentialId?: string
    readonly clientAddress?: string
  }
  /**
   * A passkey's signature counter did not move forward: the authenticator may have been cloned. The
   * credential is marked and refused from now on.
   */
  'passkey.counter_regressed': {
    readonly accountId: string
    readonly credentialId: string
    readonly storedCounter: number
    readonly presentedCounter: number
    readonly clientAddress?: string
  }
}

/** Why a passkey ceremony failed. */
export type PasskeyFailureReason =
  | 'unknown_challenge'
  | 'unknown_credential'
  | 'verification_failed'
  | 'credential_suspended'
  | 'wrong_account'

/** The `type` of a security event: `login.succeeded`, `session.revoked`, `refresh.reuse_detected`, ... */
export type SecurityEventType = keyof SecurityEventFields

/** One security event: a `type`, the time it happened, and that type's non-secret fields. */
export type SecurityEvent = {
  [Type in SecurityEventType]: { readonly type: Type; readonly at: Date } & SecurityEventFields[Type]
}[SecurityEventType]

/** The application's receiver of security events (audit log, SIEM, metrics); may be sync or async. */
export type SecurityEventSink = (event: SecurityEvent) => void | Promise<void>

/** Told when a sink throws or rejects; what it does is up to the application (count, log the code). */
export type SecurityEventSinkErrorHandler = (error: unknown, event: SecurityEvent) => void

/**
 * Hands `event` to `sink` without ever failing or delaying the caller: the sink is called synchronously,
 * a synchronous throw is caught, a returned promise is not awaited and its rejection is caught (no
 * `unhandledRejection`). Failures go to `onSinkError`, itself guarded. Returns nothing to await.
 */
export function emitSecurityEvent(
  sink: SecurityEventSink | undefined,
  event: SecurityEvent,
  onSinkError?: SecurityEventSinkErrorHandler,
): void {
  if (sink === undefined) return
  const report = (error: unknown): void => {
    try {
      onSinkError?.(error, event)
    } catch {
      // The error handler failed as well; the request still must not.
    }
  }
  try {
    const result: unknown = sink(event)
    if (isThenable(result)) {
      // `then` may itself be hostile (a getter that throws, or a `then` that throws synchronously).
      Promise.resolve(result).then(undefined, report)
    }
  } catch (error) {
    report(error)
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false
  try {
    return typeof (value as { then?: unknown }).then === 'function'
  } catch {
    return false
  }
}
