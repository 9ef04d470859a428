import { hash, randomBytes as nodeRandomBytes } from 'node:crypto'
import { LocalAccountError } from './errors.js'

/** The fewest random bytes an opaque token may have (128 bits). */
export const MIN_OPAQUE_TOKEN_BYTES = 16

/** The default size of an opaque token: 32 random bytes (43 base64url characters). */
export const DEFAULT_OPAQUE_TOKEN_BYTES = 32

const MAX_OPAQUE_TOKEN_BYTES = 256

/**
 * A fresh opaque credential (session id, refresh token): `bytes` random bytes, base64url without padding.
 * `bytes` must be an integer from 16 to 256; `random` defaults to `node:crypto` `randomBytes` and must
 * return exactly `bytes` bytes (`local.randomness_failed` otherwise). Store only `digestOpaqueToken(token)`.
 */
export function newOpaqueToken(
  bytes: number = DEFAULT_OPAQUE_TOKEN_BYTES,
  random: (size: number) => Uint8Array = nodeRandomBytes,
): string {
  if (!Number.isInteger(bytes) || bytes < MIN_OPAQUE_TOKEN_BYTES || bytes > MAX_OPAQUE_TOKEN_BYTES) {
    throw new LocalAccountError(
      'local.invalid_input',
      `opaque tokens need from ${MIN_OPAQUE_TOKEN_BYTES} to ${MAX_OPAQUE_TOKEN_BYTES} random bytes`,
    )
  }
  const value = random(bytes)
  if (!(value instanceof Uint8Array) || value.length !== bytes) {
    throw new LocalAccountError('local.randomness_failed', 'randomBytes returned the wrong size')
  }
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64url')
}

/**
 * What stores keep instead of an opaque token: SHA-256 of its UTF-8 bytes, lower-case hex (64 characters).
 * The tokens are 128+ random bits, so a plain hash (no pepper, no slow hash) is enough: a leaked table
 * gives nothing to replay.
 */
export function digestOpaqueToken(token: string): string {
  if (typeof token !== 'string' || token.length === 0) {
    throw new LocalAccountError('local.invalid_input', 'opaque token must be a non-empty string')
  }
  // the one-shot `hash` (UTF-8 for strings, as `update(token, 'utf8')`) skips a Hash object per request
  return hash('sha256', token, 'hex')
}
