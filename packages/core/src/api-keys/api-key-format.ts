import { ConfigurationError } from '../errors/portcullis-error.js'

/** Key id: 12 random bytes, base64url (16 characters, may contain `_` or `-`). */
export const API_KEY_ID_BYTES = 12
export const API_KEY_ID_LENGTH = 16
/** Secret: 32 random bytes, base64url (43 characters). */
export const API_KEY_SECRET_BYTES = 32
export const API_KEY_SECRET_LENGTH = 43

const PREFIX = /^[A-Za-z0-9]{1,32}$/
const BASE64URL = /^[A-Za-z0-9_-]+$/

export function assertApiKeyPrefix(prefix: string): void {
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
    throw new ConfigurationError('api_key.invalid_prefix', 'API key prefix must be 1 to 32 letters or digits')
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/**
 * Exact base64url of exactly `bytes` bytes, in its one canonical spelling: unpadded length, the url-safe
 * alphabet, and zero spare bits in the last character (so no two spellings decode to the same bytes).
 * Checked without decoding: this runs on every request, before any store access.
 */
export function isCanonicalBase64url(value: string, bytes: number): boolean {
  const length = Math.ceil((bytes * 8) / 6)
  if (value.length !== length || !BASE64URL.test(value)) return false
  const spareBits = length * 6 - bytes * 8
  return (ALPHABET.indexOf(value.charAt(length - 1)) & ((1 << spareBits) - 1)) === 0
}

export const isApiKeyId = (value: unknown): value is string =>
  typeof value === 'string' &&
  value.length === API_KEY_ID_LENGTH &&
  isCanonicalBase64url(value, API_KEY_ID_BYTES)

export interface ApiKeyParts {
  readonly keyId: string
  readonly secret: string
}

/**
 * Parses `<prefix>_<keyId>_<secret>` by fixed lengths (the key id may itself contain `_`). Any deviation
 * (length, separators, alphabet, non-canonical base64url) gives `undefined`, before any store access.
 */
export function parseApiKey(value: string, prefix: string): ApiKeyParts | undefined {
  const start = prefix.length + 1
  if (value.length !== start + API_KEY_ID_LENGTH + 1 + API_KEY_SECRET_LENGTH) return undefined
  if (!value.startsWith(prefix) || value.charCodeAt(prefix.length) !== 0x5f) return undefined
  if (value.charCodeAt(start + API_KEY_ID_LENGTH) !== 0x5f) return undefined
  const keyId = value.slice(start, start + API_KEY_ID_LENGTH)
  const secret = value.slice(start + API_KEY_ID_LENGTH + 1)
  if (!isCanonicalBase64url(keyId, API_KEY_ID_BYTES) || !isCanonicalBase64url(secret, API_KEY_SECRET_BYTES)) {
    return undefined
  }
  return { keyId, secret }
}

export function formatApiKey(prefix: string, keyId: string, secret: string): string {
  return `${prefix}_${keyId}_${secret}`
}
