import { createHmac, createSecretKey, type KeyObject } from 'node:crypto'
import { ConfigurationError } from '../errors/portcullis-error.js'

/** One recovery-code pepper version: a label and at least 32 secret bytes (environment, secret store). */
export interface RecoveryCodePepper {
  readonly version: string
  readonly secret: Uint8Array
}

/** Crockford's base32 alphabet in lower case: no i, l, o or u to misread. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'
/** Characters of a code: 12 x 5 = 60 random bits, shown as `xxxx-xxxx-xxxx`. */
const CODE_CHARACTERS = 12
const VERSION = /^[A-Za-z0-9._-]{1,32}$/
const DIGEST_CONTEXT = 'portcullis:recovery-code:v1\u0000'
const inspect = Symbol.for('nodejs.util.inspect.custom')

/** A fresh recovery code, `xxxx-xxxx-xxxx` in Crockford base32 (60 random bits). */
export function newRecoveryCode(random: (size: number) => Uint8Array): string {
  const bytes = random(CODE_CHARACTERS)
  if (!(bytes instanceof Uint8Array) || bytes.byteLength !== CODE_CHARACTERS) {
    throw new ConfigurationError('totp.random_invalid', 'randomBytes returned the wrong size')
  }
  // 256 is a multiple of 32, so `byte & 31` is uniform.
  const characters = Array.from(bytes, (byte) => ALPHABET.charAt(byte & 31)).join('')
  return `${characters.slice(0, 4)}-${characters.slice(4, 8)}-${characters.slice(8)}`
}

/**
 * The canonical form of a typed recovery code (case, dashes and spaces ignored; `o` read as `0`, `i`
 * and `l` as `1`), or undefined when it cannot be one.
 */
export function normalizeRecoveryCode(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 64) return undefined
  const compact = value.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1')
  if (compact.length !== CODE_CHARACTERS) return undefined
  for (const character of compact) if (!ALPHABET.includes(character)) return undefined
  return compact
}

/**
 * The versioned HMAC peppers recovery codes are digested with, as API keys are: a leaked table gives
 * nothing to try offline without the pepper. New sets use `active`; sets made under a retained version
 * keep working until they are regenerated. Secrets are imported once and never shown by inspect or JSON.
 */
export class RecoveryCodePeppers {
  readonly activeVersion: string
  readonly #keys = new Map<string, KeyObject>()

  constructor(active: RecoveryCodePepper, retained: readonly RecoveryCodePepper[] = []) {
    for (const pepper of [active, ...(Array.isArray(retained) ? retained : [null])]) {
      if (typeof pepper !== 'object' || pepper === null) {
        throw new ConfigurationError(
          'totp.invalid_pepper',
          'a recovery-code pepper must be { version, secret }',
        )
      }
      if (typeof pepper.version !== 'string' || !VERSION.test(pepper.version)) {
        throw new ConfigurationError(
          'totp.invalid_pepper',
          'recovery-code pepper version must match [A-Za-z0-9._-]{1,32}',
        )
      }
      if (!(pepper.secret instanceof Uint8Array) || pepper.secret.byteLength < 32) {
        throw new ConfigurationError(
          'totp.invalid_pepper',
          `recovery-code pepper ${pepper.version} must be at least 32 bytes`,
        )
      }
      if (this.#keys.has(pepper.version)) {
        throw new ConfigurationError('totp.invalid_pepper', `pepper version ${pepper.version} appears twice`)
      }
      this.#keys.set(pepper.version, createSecretKey(Buffer.from(pepper.secret)))
    }
    this.activeVersion = active.version
  }

  /** The digest stored for a new code: under the active version, bound to the account. */
  digest(accountId: string, normalizedCode: string): string {
    return this.#digest(this.activeVersion, accountId, normalizedCode)
  }

  /** The presented code's digest under every known version (what a redemption looks for). */
  candidates(accountId: string, normalizedCode: string): readonly string[] {
    return [...this.#keys.keys()].map((version) => this.#digest(version, accountId, normalizedCode))
  }

  #digest(version: string, accountId: string, code: string): string {
    const key = this.#keys.get(version) as KeyObject
    const mac = createHmac('sha256', key).update(`${DIGEST_CONTEXT}${accountId}\u0000${code}`, 'utf8')
    return `${version}:${mac.digest('base64url')}`
  }

  toJSON(): { activeVersion: string; versions: readonly string[] } {
    return { activeVersion: this.activeVersion, versions: [...this.#keys.keys()] }
  }

  [inspect](): string {
    return `RecoveryCodePeppers { activeVersion: ${JSON.stringify(this.activeVersion)} }`
  }
}

/**
 * A new set of recovery codes, for the one response that shows them (`reveal()`). `util.inspect`,
 * `JSON.stringify` and `String()` show only how many there are.
 */
export class RecoveryCodes {
  readonly count: number
  readonly #codes: readonly string[]

  constructor(codes: readonly string[]) {
    this.#codes = Object.freeze([...codes])
    this.count = codes.length
    Object.freeze(this)
  }

  reveal(): readonly string[] {
    return this.#codes
  }

  toJSON(): { count: number; codes: '[redacted]' } {
    return { count: this.count, codes: '[redacted]' }
  }

  toString(): string {
    return `RecoveryCodes(${this.count})`
  }

  [inspect](): string {
    return `RecoveryCodes { count: ${this.count}, codes: [redacted] }`
  }
}
