import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/**
 * Stable codes of the local-accounts primitives, and their classes:
 * - `local.invalid_password` (invalid-input): not a string, too short, too long or not well-formed Unicode;
 * - `local.invalid_username` (invalid-input): empty, too long, or with control, format or space characters;
 * - `local.invalid_input` (invalid-input): another argument breaks the rules (token claims, cookie value);
 * - `local.invalid_signing_key` (invalid-input): a signing key JWK that cannot be imported or is not private;
 * - `local.hashing_busy` (unavailable): every password-hashing slot and queue place is taken;
 * - `local.csrf_refused` (forbidden): an unsafe request failed the CSRF check;
 * - `local.randomness_failed` (unavailable): the random source failed or answered the wrong length.
 */
export type LocalAccountErrorCode =
  | 'local.invalid_password'
  | 'local.invalid_username'
  | 'local.invalid_input'
  | 'local.invalid_signing_key'
  | 'local.hashing_busy'
  | 'local.csrf_refused'
  | 'local.randomness_failed'

const CLASSES: Readonly<Record<LocalAccountErrorCode, ErrorClass>> = {
  'local.invalid_password': 'invalid-input',
  'local.invalid_username': 'invalid-input',
  'local.invalid_input': 'invalid-input',
  'local.invalid_signing_key': 'invalid-input',
  'local.hashing_busy': 'unavailable',
  'local.csrf_refused': 'forbidden',
  'local.randomness_failed': 'unavailable',
}

/**
 * The error of the local-accounts primitives. Messages name the rule that was broken, never the value:
 * no password, username, token, cookie or key material ever appears in a message.
 */
export class LocalAccountError extends PortcullisError {
  declare readonly code: LocalAccountErrorCode

  constructor(code: LocalAccountErrorCode, message: string, options: PortcullisErrorOptions = {}) {
    super(code, CLASSES[code], message, options)
  }
}

/**
 * Every password-hashing slot and queue place is taken (`local.hashing_busy`, class `unavailable`). HTTP
 * adapters answer 503 with `Retry-After: retryAfterSeconds`.
 */
export class PasswordHashingBusyError extends LocalAccountError {
  /** Seconds after which a retry is reasonable; for the `Retry-After` header. */
  readonly retryAfterSeconds: number

  constructor(retryAfterSeconds: number) {
    super('local.hashing_busy', 'password hashing is at capacity; retry later')
    this.retryAfterSeconds = retryAfterSeconds
  }

  /** The JSON form, with `retryAfterSeconds`. */
  override toJSON(): ReturnType<LocalAccountError['toJSON']> & { retryAfterSeconds: number } {
    return { ...super.toJSON(), retryAfterSeconds: this.retryAfterSeconds }
  }
}

/** An invalid-input error for `local.invalid_input`. */
export function invalidLocalInput(message: string): LocalAccountError {
  return new LocalAccountError('local.invalid_input', message)
}
