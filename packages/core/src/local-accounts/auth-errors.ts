import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/**
 * Stable codes of the local-accounts service (`LocalAccounts`) and their classes:
 * - `local.invalid_credentials` (unauthenticated, 401): unknown username or wrong password, one code and
 *   one message for both, so a caller cannot tell which;
 * - `local.rate_limited` (rate-limited, 429 with `Retry-After`): too many sign-in attempts for this
 *   account or client address;
 * - `local.registration_closed` (forbidden, 403): registration is `closed`, or `invite-only` without an
 *   invite code;
 * - `local.invite_invalid` (forbidden, 403): unknown, used or expired invite code;
 * - `local.username_taken` (conflict, 409);
 * - `local.refresh_invalid` (unauthenticated, 401): unknown, expired, revoked, reused or stale refresh token;
 * - `local.account_not_found` (unauthenticated, 401): `establishSignIn` for an account that does not exist;
 * - `local.sign_in_required` (unauthenticated, 401): the operation needs a signed-in caller of this kind;
 * - `local.password_changed_concurrently` (conflict, 409): another change of the same password won;
 * - `local.password_screened` (invalid-input, 400): the new password is common, breached or made of the
 *   account's name or address (the `PasswordScreen` refused it); the answer never carries the password;
 * - `local.password_screen_unavailable` (unavailable, 503 with `Retry-After`): the screen could not
 *   decide (a range service down with `whenUnavailable: 'refuse'`);
 * - `local.invalid_request` (invalid-input, 400): a request body of the wrong shape. Its `detail` names
 *   the field and the rule, never the value, and is meant for the client.
 */
export type LocalAuthErrorCode =
  | 'local.invalid_credentials'
  | 'local.rate_limited'
  | 'local.registration_closed'
  | 'local.invite_invalid'
  | 'local.username_taken'
  | 'local.refresh_invalid'
  | 'local.account_not_found'
  | 'local.sign_in_required'
  | 'local.password_changed_concurrently'
  | 'local.password_screened'
  | 'local.password_screen_unavailable'
  | 'local.invalid_request'

const CLASSES: Readonly<Record<LocalAuthErrorCode, ErrorClass>> = {
  'local.invalid_credentials': 'unauthenticated',
  'local.rate_limited': 'rate-limited',
  'local.registration_closed': 'forbidden',
  'local.invite_invalid': 'forbidden',
  'local.username_taken': 'conflict',
  'local.refresh_invalid': 'unauthenticated',
  'local.account_not_found': 'unauthenticated',
  'local.sign_in_required': 'unauthenticated',
  'local.password_changed_concurrently': 'conflict',
  'local.password_screened': 'invalid-input',
  'local.password_screen_unavailable': 'unavailable',
  'local.invalid_request': 'invalid-input',
}

export interface LocalAuthErrorOptions extends PortcullisErrorOptions {
  /** For `local.rate_limited`: seconds until the window ends (`Retry-After`). */
  readonly retryAfterSeconds?: number
  /** A client-safe explanation (field names and rules only); set for `local.invalid_request`. */
  readonly detail?: string
}

/**
 * A refusal of the local-accounts service. Messages never carry a password, token, cookie or username as
 * typed. HTTP adapters map the class to the status; `detail`, when set, is safe to show the client.
 */
export class LocalAuthError extends PortcullisError {
  declare readonly code: LocalAuthErrorCode
  declare readonly retryAfterSeconds?: number
  declare readonly detail?: string

  constructor(code: LocalAuthErrorCode, message: string, options: LocalAuthErrorOptions = {}) {
    super(code, CLASSES[code], message, options)
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds
    if (options.detail !== undefined) this.detail = options.detail
  }

  override toJSON(): ReturnType<PortcullisError['toJSON']> & { retryAfterSeconds?: number } {
    const json = super.toJSON()
    return this.retryAfterSeconds === undefined
      ? json
      : { ...json, retryAfterSeconds: this.retryAfterSeconds }
  }
}

/** A body of the wrong shape (`local.invalid_request`); `detail` is the client-safe rule that failed. */
export function invalidRequest(detail: string): LocalAuthError {
  return new LocalAuthError('local.invalid_request', detail, { detail })
}

/** The one answer for an unknown account and a wrong password. */
export function invalidCredentials(): LocalAuthError {
  return new LocalAuthError('local.invalid_credentials', 'the username or password is wrong')
}
