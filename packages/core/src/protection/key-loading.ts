import { Buffer } from 'node:buffer'
import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { OAuthTransactionProtectorKey, PROTECTOR_KEY_BYTES } from './key.js'

/** How key material is written in an environment variable or secret-store entry. */
export type KeyMaterialEncoding = 'base64' | 'base64url' | 'hex'

export interface LoadProtectorKeyOptions {
  /** Version label stored next to every envelope sealed under this key, e.g. `'2025-06'`. */
  readonly version: string
  /** The encoded key material, typically `process.env.X`; `undefined` or blank is a configuration error. */
  readonly material: string | undefined
  readonly encoding: KeyMaterialEncoding
}

const LOAD_KEY_OPTIONS: OptionsShape<LoadProtectorKeyOptions> = {
  version: { required: true, kind: 'string', code: 'protection.key_version_invalid' },
  material: { kind: 'string', code: 'protection.key_missing' },
  encoding: { required: true, kind: 'string', code: 'protection.key_encoding' },
}

const ALPHABETS: Record<KeyMaterialEncoding, RegExp> = {
  base64: /^[A-Za-z0-9+/]+={0,2}$/,
  base64url: /^[A-Za-z0-9_-]+={0,2}$/,
  hex: /^(?:[0-9a-fA-F]{2})+$/,
}

function malformed(encoding: string): ConfigurationError {
  return new ConfigurationError('protection.key_encoding', `key material is not valid ${encoding}`)
}

/** Decodes strictly: wrong alphabet, bad padding or non-canonical trailing bits are refused. */
export function decodeKeyMaterial(text: string, encoding: KeyMaterialEncoding): Uint8Array {
  const alphabet = ALPHABETS[encoding]
  if (alphabet === undefined) {
    throw new ConfigurationError('protection.key_encoding', 'key encoding must be base64, base64url or hex')
  }
  if (!alphabet.test(text)) throw malformed(encoding)
  const bytes = Buffer.from(text, encoding)
  if (encoding === 'hex') return new Uint8Array(bytes)
  const unpadded = text.replace(/=+$/, '')
  const padded = text.includes('=')
  if (padded && text.length % 4 !== 0) throw malformed(encoding)
  const canonical = bytes.toString(encoding === 'base64' ? 'base64' : 'base64url').replace(/=+$/, '')
  if (canonical !== unpadded) throw malformed(encoding)
  return new Uint8Array(bytes)
}

/**
 * Loads one protector key from an environment or secret-store string (base64, base64url or hex).
 * Surrounding whitespace (a trailing newline from a mounted secret file) is ignored; anything that does
 * not decode to exactly 32 bytes is a `ConfigurationError`. Messages never contain the material.
 */
export function loadOAuthTransactionProtectorKey(
  options: LoadProtectorKeyOptions,
): OAuthTransactionProtectorKey {
  readOptions(options, 'loadOAuthTransactionProtectorKey', LOAD_KEY_OPTIONS)
  const { version, material, encoding } = options
  if (typeof material !== 'string' || material.trim() === '') {
    throw new ConfigurationError(
      'protection.key_missing',
      `key material for version ${String(version)} is missing`,
    )
  }
  const bytes = decodeKeyMaterial(material.trim(), encoding)
  try {
    if (bytes.byteLength !== PROTECTOR_KEY_BYTES) {
      throw new ConfigurationError(
        'protection.key_length',
        `decoded key material must be exactly ${PROTECTOR_KEY_BYTES} bytes (got ${bytes.byteLength})`,
      )
    }
    return new OAuthTransactionProtectorKey(version, bytes)
  } finally {
    bytes.fill(0)
  }
}
