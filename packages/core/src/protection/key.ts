import { createSecretKey, type KeyObject } from 'node:crypto'
import { ConfigurationError } from '../errors/portcullis-error.js'

/** AES-256 needs exactly this many bytes of key material. */
export const PROTECTOR_KEY_BYTES = 32

/**
 * Key version labels: 1-64 characters of `A-Z a-z 0-9 . _ : -`. The label is stored next to every
 * envelope and appears in the envelope string form, so it is kept free of separators and whitespace.
 */
const VERSION_LABEL = /^[A-Za-z0-9._:-]{1,64}$/

const keyObjects = new WeakMap<OAuthTransactionProtectorKey, KeyObject>()

export function isValidKeyVersion(version: unknown): version is string {
  return typeof version === 'string' && VERSION_LABEL.test(version)
}

export function assertKeyVersion(version: unknown): string {
  if (typeof version !== 'string' || version.trim() === '') {
    throw new ConfigurationError('protection.key_version_invalid', 'key version must be a non-blank string')
  }
  if (!VERSION_LABEL.test(version)) {
    throw new ConfigurationError(
      'protection.key_version_invalid',
      'key version must be 1-64 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"',
    )
  }
  return version
}

/**
 * One versioned AES-256 key. The material is copied into a `KeyObject` on construction, so later
 * changes to the caller's buffer have no effect, and it never appears in `util.inspect` or JSON.
 */
export class OAuthTransactionProtectorKey {
  readonly version: string

  constructor(version: string, keyMaterial: Uint8Array) {
    this.version = assertKeyVersion(version)
    if (!(keyMaterial instanceof Uint8Array)) {
      throw new ConfigurationError('protection.key_material_invalid', 'key material must be a Uint8Array')
    }
    if (keyMaterial.byteLength !== PROTECTOR_KEY_BYTES) {
      throw new ConfigurationError(
        'protection.key_length',
        `key material must be exactly ${PROTECTOR_KEY_BYTES} bytes (got ${keyMaterial.byteLength})`,
      )
    }
    if (keyMaterial.every((byte) => byte === 0)) {
      throw new ConfigurationError('protection.key_weak', 'key material must not be all zero bytes')
    }
    keyObjects.set(this, createSecretKey(Uint8Array.prototype.slice.call(keyMaterial)))
    Object.freeze(this)
  }

  toJSON(): { version: string; keyMaterial: '[redacted]' } {
    return { version: this.version, keyMaterial: '[redacted]' }
  }

  toString(): string {
    return `OAuthTransactionProtectorKey(${this.version})`
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `OAuthTransactionProtectorKey { version: ${JSON.stringify(this.version)}, keyMaterial: [redacted] }`
  }
}

/** The secret key behind a protector key; module-internal, never exported from the package. */
export function keyObjectOf(key: OAuthTransactionProtectorKey): KeyObject {
  const keyObject = keyObjects.get(key)
  if (keyObject === undefined) {
    throw new ConfigurationError(
      'protection.key_invalid',
      'keys must be OAuthTransactionProtectorKey instances created with its constructor',
    )
  }
  return keyObject
}
