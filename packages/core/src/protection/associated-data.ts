import { InvalidInputError } from '../errors/portcullis-error.js'

/** One component of associated data: a string (encoded as UTF-8) or raw bytes. */
export type AssociatedDataPart = string | Uint8Array

/** Upper bound on the encoded size, so a caller cannot make the protector hash megabytes of AAD. */
export const MAX_ASSOCIATED_DATA_BYTES = 16 * 1024

const FORMAT_VERSION = 0x01
const encoder = new TextEncoder()
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

function encodePart(part: unknown, index: number): Uint8Array {
  if (part instanceof Uint8Array) return part
  if (typeof part === 'string') {
    // Two strings that differ only in lone surrogates would both encode to U+FFFD; refuse them.
    if (LONE_SURROGATE.test(part)) {
      throw new InvalidInputError(
        'protection.associated_data_invalid',
        `associated data part ${index} is not well-formed Unicode`,
      )
    }
    return encoder.encode(part)
  }
  throw new InvalidInputError(
    'protection.associated_data_invalid',
    `associated data part ${index} must be a string or Uint8Array`,
  )
}

/**
 * Builds unambiguous associated data for `OAuthTransactionProtector.protect/unprotect`.
 *
 * Layout: one format byte (`0x01`), then for the purpose and every part a 4-byte big-endian length
 * followed by the bytes. Because every component is length-prefixed, `('a', 'bc')` and `('ab', 'c')`
 * give different bytes, and so do `('a')` and `('a', '')`. The purpose names what the envelope holds
 * (`'oauth.transaction.pkce-verifier.v1'`); the parts name the record it belongs to.
 */
export function associatedData(purpose: string, ...parts: readonly AssociatedDataPart[]): Uint8Array {
  if (typeof purpose !== 'string' || purpose.trim() === '') {
    throw new InvalidInputError(
      'protection.associated_data_invalid',
      'associated data purpose must not be blank',
    )
  }
  const encoded = [encodePart(purpose, 0), ...parts.map((part, index) => encodePart(part, index + 1))]
  let size = 1
  for (const bytes of encoded) size += 4 + bytes.byteLength
  if (size > MAX_ASSOCIATED_DATA_BYTES) {
    throw new InvalidInputError(
      'protection.associated_data_too_large',
      `associated data must be at most ${MAX_ASSOCIATED_DATA_BYTES} bytes`,
    )
  }
  const out = new Uint8Array(size)
  const view = new DataView(out.buffer)
  out[0] = FORMAT_VERSION
  let offset = 1
  for (const bytes of encoded) {
    view.setUint32(offset, bytes.byteLength)
    out.set(bytes, offset + 4)
    offset += 4 + bytes.byteLength
  }
  return out
}
