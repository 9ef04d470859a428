import { randomBytes as nodeRandomBytes } from 'node:crypto'
import { invalidCodeInput } from './errors.js'

/** Where randomness comes from (injectable for tests); `node:crypto` `randomBytes` by default. */
export type CodeRandomSource = (size: number) => Uint8Array

/** Decimal digits: what a six- to eight-digit code is made of. */
export const DIGIT_ALPHABET = '0123456789'
/** Letters and digits a person does not confuse when reading or typing (no 0 O 1 I L U). */
export const UNAMBIGUOUS_ALPHABET = 'ABCDEFGHJKMNPQRSTVWXYZ23456789'

export interface GenerateCodeOptions {
  /** 4 to 64 characters. Default 6. */
  readonly length?: number
  /** 2 to 62 distinct characters of A-Z a-z 0-9. Default `DIGIT_ALPHABET`. */
  readonly alphabet?: string
  readonly randomBytes?: CodeRandomSource
}

const ALPHANUMERIC = /^[A-Za-z0-9]{2,62}$/

/**
 * A code of `length` characters drawn uniformly from `alphabet`: random bytes at or above the largest
 * multiple of the alphabet's size are thrown away (no modulo bias).
 */
export function generateCode(options: GenerateCodeOptions = {}): string {
  const length = options.length ?? 6
  const alphabet = options.alphabet ?? DIGIT_ALPHABET
  const random = options.randomBytes ?? nodeRandomBytes
  if (!Number.isInteger(length) || length < 4 || length > 64) {
    throw invalidCodeInput('length must be an integer from 4 to 64')
  }
  if (
    typeof alphabet !== 'string' ||
    !ALPHANUMERIC.test(alphabet) ||
    new Set(alphabet).size !== alphabet.length
  ) {
    throw invalidCodeInput('alphabet must be 2 to 62 distinct characters of A-Z a-z 0-9')
  }
  const size = alphabet.length
  const limit = 256 - (256 % size)
  let code = ''
  while (code.length < length) {
    const bytes = random(length * 2)
    if (!(bytes instanceof Uint8Array) || bytes.byteLength === 0) {
      throw invalidCodeInput('the random source must return the bytes asked for')
    }
    for (const byte of bytes) {
      if (byte >= limit) continue
      code += alphabet[byte % size]
      if (code.length === length) break
    }
  }
  return code
}

/** A flow handle: 128 random bits, base64url (22 characters). */
export function generateFlowId(randomBytes: CodeRandomSource = nodeRandomBytes): string {
  const bytes = randomBytes(16)
  if (!(bytes instanceof Uint8Array) || bytes.byteLength !== 16) {
    throw invalidCodeInput('the random source must return the bytes asked for')
  }
  return Buffer.from(bytes).toString('base64url')
}
