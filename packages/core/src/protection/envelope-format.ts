import { Buffer } from 'node:buffer'
import { InvalidInputError } from '../errors/portcullis-error.js'
import { isValidKeyVersion } from './key.js'
import { type ProtectedEnvelope, ProtectedEnvelopeError } from './protector.js'

/** Format tag of the string form; a future layout gets a new tag, never a reinterpretation. */
const PREFIX = 'pe1.'
/** Largest sealed payload the string form carries (64 KiB of plaintext plus generous overhead). */
export const MAX_ENVELOPE_BYTES = 65 * 1024
const BASE64URL = /^[A-Za-z0-9_-]+$/

/**
 * Serializes an envelope for a text column: `pe1.<keyVersion>.<base64url(ciphertext)>`, unpadded.
 * The key version stays readable so an operator can count envelopes per key during a rotation.
 */
export function serializeProtectedEnvelope(envelope: ProtectedEnvelope): string {
  if (!isValidKeyVersion(envelope?.keyVersion)) {
    throw new InvalidInputError(
      'protection.envelope_version_invalid',
      'envelope key version must be 1-64 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"',
    )
  }
  const ciphertext: unknown = envelope.ciphertext
  if (!(ciphertext instanceof Uint8Array) || ciphertext.byteLength === 0) {
    throw new InvalidInputError(
      'protection.envelope_ciphertext_invalid',
      'envelope ciphertext must be non-empty bytes',
    )
  }
  if (ciphertext.byteLength > MAX_ENVELOPE_BYTES) {
    throw new InvalidInputError(
      'protection.envelope_too_large',
      `envelope must be at most ${MAX_ENVELOPE_BYTES} bytes`,
    )
  }
  const encoded = Buffer.from(ciphertext.buffer, ciphertext.byteOffset, ciphertext.byteLength).toString(
    'base64url',
  )
  return `${PREFIX}${envelope.keyVersion}.${encoded}`
}

/**
 * Parses the string form strictly: unknown format tag, bad version label, non-canonical or padded
 * base64url, empty or oversized ciphertext all throw `ProtectedEnvelopeError`.
 */
export function parseProtectedEnvelope(text: string): ProtectedEnvelope {
  const maxLength = PREFIX.length + 64 + 1 + Math.ceil((MAX_ENVELOPE_BYTES * 4) / 3)
  if (typeof text !== 'string' || text.length > maxLength || !text.startsWith(PREFIX)) {
    throw new ProtectedEnvelopeError()
  }
  // base64url never contains '.', so the last dot separates the label (which may contain dots).
  const separator = text.lastIndexOf('.')
  const keyVersion = text.slice(PREFIX.length, separator)
  const encoded = text.slice(separator + 1)
  if (separator < PREFIX.length || !isValidKeyVersion(keyVersion) || !BASE64URL.test(encoded)) {
    throw new ProtectedEnvelopeError()
  }
  const bytes = Buffer.from(encoded, 'base64url')
  if (
    bytes.byteLength === 0 ||
    bytes.byteLength > MAX_ENVELOPE_BYTES ||
    bytes.toString('base64url') !== encoded
  ) {
    throw new ProtectedEnvelopeError()
  }
  return Object.freeze({ keyVersion, ciphertext: new Uint8Array(bytes) })
}
