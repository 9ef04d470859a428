import { LocalAccountError } from './errors.js'
import { normalizeUsername } from './passwords/username.js'

// Input rules shared by every local-account store (memory, Postgres, yours): a store validates each
// request with these before it reads or writes anything, so bad input is the same typed
// `local.invalid_input` (or `local.invalid_username`) error everywhere and nothing is written.
// Messages name the field and the rule, never the value.

/** The longest account, family or other store id. */
export const MAX_STORE_ID_LENGTH = 255
/** The longest encoded password hash a store accepts (an argon2id PHC string is about 100 characters). */
export const MAX_PASSWORD_HASH_LENGTH = 1024
/** The longest session user agent a store accepts; callers truncate longer headers before storing. */
export const MAX_SESSION_USER_AGENT_LENGTH = 512
/** The longest session client address (an IPv6 address with zone fits easily). */
export const MAX_SESSION_CLIENT_ADDRESS_LENGTH = 64
/** The longest rate-limit key. */
export const MAX_RATE_LIMIT_KEY_LENGTH = 256

/** `digestOpaqueToken` output: lower-case hex SHA-256. */
const DIGEST = /^[0-9a-f]{64}$/
/** A session handle: 16 to 128 base64url characters (`newOpaqueToken(16)` gives 22). */
const HANDLE = /^[A-Za-z0-9_-]{16,128}$/
/** Control characters and lone surrogates: Postgres cannot store NUL and re-encodes lone surrogates. */
const UNSTORABLE = /[\p{Cc}\p{Cs}]/u
/** Dates a store keeps: from 1970 to the end of year 9999 (inside every SQL timestamp range). */
const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

export function invalid(message: string): LocalAccountError {
  return new LocalAccountError('local.invalid_input', message)
}

/** A request argument must be a plain object. */
export function requireRecord(value: unknown, field: string): Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`${field} must be an object`)
  }
  return value as Readonly<Record<string, unknown>>
}

/** An id (account, family): 1-255 characters, no surrounding white space, no control characters. */
export function requireStoreId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim() !== value) {
    throw invalid(`${field} must be a non-blank string without surrounding white space`)
  }
  if (value.length > MAX_STORE_ID_LENGTH) throw invalid(`${field} is too long`)
  if (UNSTORABLE.test(value)) throw invalid(`${field} must not contain control characters`)
  return value
}

/** A username exactly as `normalizeUsername` returns it; anything else is `local.invalid_username`. */
export function requireNormalizedUsername(value: unknown): string {
  const normalized = normalizeUsername(value)
  if (normalized !== value) {
    throw new LocalAccountError('local.invalid_username', 'username must be normalized (normalizeUsername)')
  }
  return normalized
}

/** An encoded password hash: a non-empty string of at most 1024 characters without control characters. */
export function requirePasswordHash(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw invalid(`${field} must be a non-empty string`)
  if (value.length > MAX_PASSWORD_HASH_LENGTH) throw invalid(`${field} is too long`)
  if (UNSTORABLE.test(value)) throw invalid(`${field} must not contain control characters`)
  return value
}

/** A stored digest of an opaque token: `digestOpaqueToken` output (64 lower-case hex characters). */
export function requireTokenDigest(value: unknown, field: string): string {
  if (typeof value !== 'string' || !DIGEST.test(value)) {
    throw invalid(`${field} must be a token digest (64 lower-case hex characters)`)
  }
  return value
}

/** A session handle: 16 to 128 base64url characters. */
export function requireHandle(value: unknown, field = 'handle'): string {
  if (typeof value !== 'string' || !HANDLE.test(value)) {
    throw invalid(`${field} must be 16 to 128 base64url characters`)
  }
  return value
}

/** A valid `Date` from 1970 to 9999, copied. */
export function requireInstant(value: unknown, field: string): Date {
  if (!(value instanceof Date)) throw invalid(`${field} must be a Date`)
  const time = value.getTime()
  if (!Number.isFinite(time) || time < 0 || time > MAX_TIME) {
    throw invalid(`${field} must be a valid date between 1970 and 9999`)
  }
  return new Date(time)
}

/** A security epoch: a safe integer of at least `minimum`. */
export function requireEpoch(value: unknown, field: string, minimum: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
    throw invalid(`${field} must be an integer of at least ${minimum}`)
  }
  return value
}

/** An integer from `minimum` to `maximum`. */
export function requireInteger(value: unknown, field: string, minimum: number, maximum: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw invalid(`${field} must be an integer from ${minimum} to ${maximum}`)
  }
  return value
}

export function requireBoolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalid(`${field} must be a boolean`)
  return value
}

/** Optional text: absent (`undefined`) or a string of 1 to `max` characters without control characters. */
export function optionalText(value: unknown, field: string, max: number): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw invalid(`${field} must be a string of 1 to ${max} characters`)
  }
  if (UNSTORABLE.test(value)) throw invalid(`${field} must not contain control characters`)
  return value
}

/** Requires `later` to be strictly after `earlier`. */
export function requireAfter(later: Date, earlier: Date, message: string): void {
  if (later.getTime() <= earlier.getTime()) throw invalid(message)
}
