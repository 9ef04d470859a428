import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { LocalAccountError } from '../errors.js'

/**
 * Port: a password hashing scheme (`@portcullis/argon2` ships the argon2id one). Implementations must
 * encode every parameter and the salt into the string they return, so `needsRehash` can compare them with
 * the configured ones, and `verify` must answer `false` (not throw) for a malformed or foreign hash.
 * Callers validate the password with `validatePassword` first.
 */
export interface PasswordHasher {
  /** A self-describing encoded hash (PHC string for argon2id) of `password` with a fresh salt. */
  hash(password: string): Promise<string>
  /** Whether `password` matches `encodedHash`; `false` for a mismatch and for an unusable hash. */
  verify(encodedHash: string, password: string): Promise<boolean>
  /** Whether `encodedHash` was made with other parameters than the configured ones (rehash after login). */
  needsRehash(encodedHash: string): boolean
}

/** Limits applied by `validatePassword`. */
export interface PasswordRules {
  /** Fewest Unicode code points. Default 8 (NIST SP 800-63B); at least 1. */
  readonly minLength?: number
  /** Most UTF-8 bytes. Default 1024; at most 4096, so a hash request is bounded work. */
  readonly maxBytes?: number
}

/** The largest `maxBytes` a configuration may choose. */
export const MAX_PASSWORD_BYTES_LIMIT = 4096

/** The default `maxBytes`: 1024 UTF-8 bytes. */
export const DEFAULT_MAX_PASSWORD_BYTES = 1024

/** The default `minLength`: 8 code points. */
export const DEFAULT_MIN_PASSWORD_LENGTH = 8

interface CheckedRules {
  readonly minLength: number
  readonly maxBytes: number
}

const RULES: OptionsShape<PasswordRules> = {
  minLength: { kind: 'number', code: 'local.invalid_config' },
  maxBytes: { kind: 'number', code: 'local.invalid_config' },
}

const LONE_SURROGATE = /\p{Cs}/u

/** Validates `PasswordRules` once (at startup); throws `ConfigurationError` (`local.invalid_config`). */
export function passwordRules(rules: PasswordRules = {}): Readonly<CheckedRules> {
  readOptions(rules, 'passwordRules', RULES)
  const minLength = rules.minLength ?? DEFAULT_MIN_PASSWORD_LENGTH
  const maxBytes = rules.maxBytes ?? DEFAULT_MAX_PASSWORD_BYTES
  if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > MAX_PASSWORD_BYTES_LIMIT) {
    throw new ConfigurationError(
      'local.invalid_config',
      `maxBytes must be an integer from 1 to ${MAX_PASSWORD_BYTES_LIMIT}`,
    )
  }
  if (!Number.isInteger(minLength) || minLength < 1 || minLength > maxBytes) {
    throw new ConfigurationError('local.invalid_config', 'minLength must be an integer from 1 to maxBytes')
  }
  return Object.freeze({ minLength, maxBytes })
}

/**
 * Checks a password before it is hashed or verified and returns it unchanged: it must be a string of
 * well-formed Unicode (no lone surrogates, which would encode to the same bytes as U+FFFD), at least
 * `minLength` code points and at most `maxBytes` UTF-8 bytes. The byte limit is checked first and bounds the
 * work. Throws `LocalAccountError` `local.invalid_password`; the message never contains the password.
 */
export function validatePassword(password: unknown, rules: PasswordRules = {}): string {
  const { minLength, maxBytes } = passwordRules(rules)
  if (typeof password !== 'string') {
    throw new LocalAccountError('local.invalid_password', 'password must be a string')
  }
  // UTF-16 length is a cheap upper bound guard before counting bytes (a code unit is at most 3 bytes).
  if (password.length > maxBytes || Buffer.byteLength(password, 'utf8') > maxBytes) {
    throw new LocalAccountError('local.invalid_password', `password must be at most ${maxBytes} bytes`)
  }
  if (LONE_SURROGATE.test(password)) {
    throw new LocalAccountError('local.invalid_password', 'password is not well-formed Unicode')
  }
  let codePoints = 0
  for (const _ of password) {
    codePoints++
    if (codePoints >= minLength) return password
  }
  throw new LocalAccountError('local.invalid_password', `password must be at least ${minLength} characters`)
}
