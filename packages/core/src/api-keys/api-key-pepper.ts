import { createHmac, createSecretKey, type KeyObject } from 'node:crypto'
import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'

/** One pepper version: a label and at least 32 secret bytes (from the environment or a secret store). */
export interface ApiKeyPepper {
  readonly version: string
  readonly secret: Uint8Array
}

const VERSION = /^[A-Za-z0-9._-]{1,32}$/
const INVALID_PEPPER = 'api_key.invalid_pepper'
const PEPPER_OPTIONS: OptionsShape<ApiKeyPepper> = {
  version: { required: true, kind: 'string', code: INVALID_PEPPER },
  secret: { required: true, kind: 'bytes', code: INVALID_PEPPER },
}
const DIGEST_CONTEXT = 'portcullis:api-key:v1\u0000'
const inspect = Symbol.for('nodejs.util.inspect.custom')

/**
 * Decodes pepper material given as text. The encoding is explicit (a hex string is also valid base64),
 * the text must be the canonical spelling, and fewer than 32 bytes is refused.
 */
export function decodeApiKeyPepper(
  version: string,
  encoded: string,
  encoding: 'base64' | 'base64url' | 'hex',
): ApiKeyPepper {
  const bytes = Buffer.from(encoded, encoding)
  const canonical =
    encoding === 'hex'
      ? bytes.toString('hex') === encoded.toLowerCase()
      : sameBase64(bytes, encoded, encoding)
  if (!canonical || bytes.length === 0) {
    throw new ConfigurationError(
      'api_key.invalid_pepper',
      `API key pepper ${JSON.stringify(version)} is not valid ${encoding}`,
    )
  }
  return { version, secret: new Uint8Array(bytes) }
}

function sameBase64(bytes: Buffer, encoded: string, encoding: 'base64' | 'base64url'): boolean {
  const again = bytes.toString(encoding)
  return encoding === 'base64' ? again === encoded : again === encoded.replace(/=+$/, '')
}

/**
 * The versioned HMAC peppers API key digests are made with. New keys use `active`; keys issued under a
 * retained version keep verifying until they are rotated (rotation re-issues under the active version),
 * after which the old version can be dropped. Secrets are imported once and never shown by `inspect`/JSON.
 */
export class ApiKeyPepperRing {
  readonly activeVersion: string
  readonly #keys = new Map<string, KeyObject>()

  constructor(active: ApiKeyPepper, retained: readonly ApiKeyPepper[] = []) {
    readOptions(active, 'ApiKeyPepperRing.active', PEPPER_OPTIONS)
    if (!Array.isArray(retained)) {
      throw new ConfigurationError(INVALID_PEPPER, 'ApiKeyPepperRing: retained peppers must be an array', {
        option: 'ApiKeyPepperRing.retained',
      })
    }
    retained.forEach((pepper, index) => {
      readOptions<ApiKeyPepper>(pepper, `ApiKeyPepperRing.retained[${index}]`, PEPPER_OPTIONS)
    })
    for (const pepper of [active, ...retained]) {
      if (typeof pepper.version !== 'string' || !VERSION.test(pepper.version)) {
        throw new ConfigurationError(
          'api_key.invalid_pepper',
          'API key pepper version must match [A-Za-z0-9._-]{1,32}',
        )
      }
      if (!(pepper.secret instanceof Uint8Array) || pepper.secret.byteLength < 32) {
        throw new ConfigurationError(
          'api_key.invalid_pepper',
          `API key pepper ${pepper.version} must be at least 32 bytes`,
        )
      }
      if (this.#keys.has(pepper.version)) {
        throw new ConfigurationError(
          'api_key.invalid_pepper',
          `API key pepper version ${pepper.version} appears twice`,
        )
      }
      this.#keys.set(pepper.version, createSecretKey(Buffer.from(pepper.secret)))
    }
    this.activeVersion = active.version
  }

  get versions(): readonly string[] {
    return [...this.#keys.keys()]
  }

  /** HMAC-SHA256 over the encoded key id and secret; `undefined` for an unknown pepper version. */
  digest(version: string, keyId: string, secret: string): Buffer | undefined {
    const key = this.#keys.get(version)
    if (key === undefined) return undefined
    return createHmac('sha256', key).update(`${DIGEST_CONTEXT}${keyId}\u0000${secret}`, 'latin1').digest()
  }

  toJSON(): { activeVersion: string; versions: readonly string[] } {
    return { activeVersion: this.activeVersion, versions: this.versions }
  }

  [inspect](): string {
    return `ApiKeyPepperRing { activeVersion: ${JSON.stringify(this.activeVersion)}, versions: ${JSON.stringify(this.versions)} }`
  }
}
