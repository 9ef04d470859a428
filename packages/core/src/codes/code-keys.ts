import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { decodeKeyMaterial, type KeyMaterialEncoding } from '../protection/key-loading.js'
import { invalidCodeInput, OneTimeCodeError, OneTimeCodeErrorCodes } from './errors.js'
import { requireCodePurpose, requireFlowId, requireKeyVersion } from './input.js'
import type { CodeCandidate, CodePurpose } from './port.js'

// Codes are stored as HMAC-SHA256(codeKey, purpose \0 id \0 code), base64url. The key is versioned
// like API-key peppers: new codes are digested under the active version; a code issued under a
// retained version keeps working until it expires, after which that version can be dropped.

/** One code key version: a number (stored beside each digest) and at least 32 secret bytes. */
export interface CodeKey {
  readonly version: number
  readonly secret: Uint8Array
}

export interface LoadCodeKeyOptions {
  readonly version: number
  /** The encoded key material, typically `process.env.X`; missing or blank is a configuration error. */
  readonly material: string | undefined
  readonly encoding: KeyMaterialEncoding
}

/** What a code digest binds: the flow handle, the purpose and the code exactly as typed. */
export interface CodeDigestInput {
  readonly id: string
  readonly purpose: CodePurpose
  readonly code: string
}

export const MIN_CODE_KEY_BYTES = 32
const MAX_CODE_LENGTH = 64
const inspect = Symbol.for('nodejs.util.inspect.custom')

function keyError(message: string): OneTimeCodeError {
  return new OneTimeCodeError(OneTimeCodeErrorCodes.invalidKey, message)
}

function checkedVersion(version: unknown): number {
  try {
    return requireKeyVersion(version, 'version')
  } catch {
    throw keyError('code key version must be an integer from 0 to 2147483647')
  }
}

function importKey(key: CodeKey): KeyObject {
  if (typeof key !== 'object' || key === null) throw keyError('a code key must be { version, secret }')
  const version = checkedVersion(key.version)
  if (!(key.secret instanceof Uint8Array) || key.secret.byteLength < MIN_CODE_KEY_BYTES) {
    throw keyError(`code key ${version} must be at least ${MIN_CODE_KEY_BYTES} bytes`)
  }
  return createSecretKey(Buffer.from(key.secret))
}

/**
 * Loads one code key from an environment or secret-store string (strict base64, base64url or hex, as
 * protector keys are). Surrounding whitespace is ignored; fewer than 32 bytes is refused. Messages never
 * hold the material.
 */
export function loadCodeKey(options: LoadCodeKeyOptions): CodeKey {
  const version = checkedVersion(options?.version)
  const material = options.material
  if (typeof material !== 'string' || material.trim() === '') throw keyError(`code key ${version} is missing`)
  let bytes: Uint8Array
  try {
    bytes = decodeKeyMaterial(material.trim(), options.encoding)
  } catch (error) {
    if (error instanceof ConfigurationError)
      throw keyError(`code key ${version} is not valid ${options.encoding}`)
    throw error
  }
  if (bytes.byteLength < MIN_CODE_KEY_BYTES) {
    bytes.fill(0)
    throw keyError(`code key ${version} must be at least ${MIN_CODE_KEY_BYTES} bytes`)
  }
  return { version, secret: bytes }
}

function digestInput(input: CodeDigestInput): string {
  if (typeof input !== 'object' || input === null) throw invalidCodeInput('digest input must be an object')
  const id = requireFlowId(input.id)
  const purpose = requireCodePurpose(input.purpose)
  const code = input.code
  if (typeof code !== 'string' || code === '' || code.length > MAX_CODE_LENGTH || code.includes('\u0000')) {
    throw invalidCodeInput(`code must be 1 to ${MAX_CODE_LENGTH} characters`)
  }
  return `${purpose}\u0000${id}\u0000${code}`
}

function hmac(key: KeyObject, input: CodeDigestInput): string {
  return createHmac('sha256', key).update(digestInput(input), 'utf8').digest('base64url')
}

/** HMAC-SHA256 of `purpose \0 id \0 code` under one key, base64url (43 characters). */
export function digestCode(key: CodeKey, input: CodeDigestInput): string {
  return hmac(importKey(key), input)
}

/**
 * The versioned keys codes are digested with: `active` for new codes, `retained` for codes issued
 * before a rotation. Secrets are imported once and never shown by `inspect` or JSON.
 */
export class CodeKeyRing {
  readonly activeVersion: number
  readonly #keys = new Map<number, KeyObject>()

  constructor(active: CodeKey, retained: readonly CodeKey[] = []) {
    if (!Array.isArray(retained)) throw keyError('retained code keys must be an array')
    for (const key of [active, ...retained]) {
      const imported = importKey(key)
      if (this.#keys.has(key.version)) throw keyError(`code key version ${key.version} appears twice`)
      this.#keys.set(key.version, imported)
    }
    this.activeVersion = active.version
  }

  get versions(): readonly number[] {
    return [...this.#keys.keys()]
  }

  /** The digest a new code is stored under: the active version's. */
  issueDigest(input: CodeDigestInput): CodeCandidate {
    return Object.freeze({ keyVersion: this.activeVersion, digest: this.#digest(this.activeVersion, input) })
  }

  /** One digest of a presented code per version held, active first (what `consume` compares). */
  candidates(input: CodeDigestInput): readonly CodeCandidate[] {
    return Object.freeze(
      this.versions.map((keyVersion) =>
        Object.freeze({ keyVersion, digest: this.#digest(keyVersion, input) }),
      ),
    )
  }

  toJSON(): { activeVersion: number; versions: readonly number[] } {
    return { activeVersion: this.activeVersion, versions: this.versions }
  }

  [inspect](): string {
    return `CodeKeyRing { activeVersion: ${this.activeVersion}, versions: ${JSON.stringify(this.versions)} }`
  }

  #digest(version: number, input: CodeDigestInput): string {
    const key = this.#keys.get(version)
    if (key === undefined) throw keyError(`code key version ${version} is not held`)
    return hmac(key, input)
  }
}

/** The candidates of a presented code under every version of the ring (see `CodeKeyRing.candidates`). */
export function codeCandidates(keyRing: CodeKeyRing, input: CodeDigestInput): readonly CodeCandidate[] {
  return keyRing.candidates(input)
}

/**
 * Whether one of the candidates is the stored digest, compared in constant time: the candidate of the
 * stored key version is compared, and a missing version compares against a dummy so the work is the same.
 */
export function codeDigestMatches(
  stored: { readonly keyVersion: number; readonly digest: string },
  candidates: readonly CodeCandidate[],
): boolean {
  const expected = Buffer.from(stored.digest, 'base64url')
  const candidate = candidates.find((item) => item.keyVersion === stored.keyVersion)
  const presented = Buffer.from(candidate?.digest ?? stored.digest, 'base64url')
  if (presented.length !== expected.length) return false
  return timingSafeEqual(presented, expected) && candidate !== undefined
}
