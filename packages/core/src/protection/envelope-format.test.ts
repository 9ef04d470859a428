import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { InvalidInputError } from '../errors/portcullis-error.js'
import { AESGCMOAuthTransactionProtector } from './aes-gcm-protector.js'
import { associatedData } from './associated-data.js'
import { MAX_ENVELOPE_BYTES, parseProtectedEnvelope, serializeProtectedEnvelope } from './envelope-format.js'
import { OAuthTransactionProtectorKey } from './key.js'
import { type ProtectedEnvelope, ProtectedEnvelopeError } from './protector.js'

describe('protected envelope string form', () => {
  it('serializes as pe1.<version>.<base64url> and parses back to an envelope that opens', async () => {
    const protector = new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('2025.06:a', randomBytes(32)),
    })
    const aad = associatedData('test', 'record-1')
    const envelope = await protector.protect(new TextEncoder().encode('token'), aad)
    const text = serializeProtectedEnvelope(envelope)
    expect(text).toMatch(/^pe1\.2025\.06:a\.[A-Za-z0-9_-]+$/)
    const parsed = parseProtectedEnvelope(text)
    expect(parsed.keyVersion).toBe('2025.06:a')
    expect(parsed.ciphertext).toEqual(envelope.ciphertext)
    expect(new TextDecoder().decode(await protector.unprotect(parsed, aad))).toBe('token')
  })

  it('parses strictly and rejects every malformed form with ProtectedEnvelopeError', () => {
    const body = Buffer.from(randomBytes(40)).toString('base64url')
    const malformed: unknown[] = [
      '',
      'pe1.',
      'pe1.v1',
      `pe1..${body}`,
      `pe1.v1.`,
      `pe2.v1.${body}`,
      `PE1.v1.${body}`,
      ` pe1.v1.${body}`,
      `pe1.v1.${body} `,
      `pe1.v 1.${body}`,
      `pe1.${'a'.repeat(65)}.${body}`,
      `pe1.v1.${body}=`,
      `pe1.v1.${Buffer.from(randomBytes(40)).toString('base64')}+/`,
      `pe1.v1.${body.slice(0, -1)}${body.endsWith('B') ? 'C' : 'B'}`,
      `pe1.v1.${'A'.repeat(Math.ceil((MAX_ENVELOPE_BYTES * 4) / 3) + 8)}`,
      42,
      null,
    ]
    for (const text of malformed) {
      expect(() => parseProtectedEnvelope(text as string), String(text).slice(0, 40)).toThrow(
        ProtectedEnvelopeError,
      )
    }
  })

  it('refuses to serialize envelopes it could not parse back', () => {
    const cases: Array<[unknown, string]> = [
      [{ keyVersion: 'v 1', ciphertext: new Uint8Array(30) }, 'protection.envelope_version_invalid'],
      [{ keyVersion: '', ciphertext: new Uint8Array(30) }, 'protection.envelope_version_invalid'],
      [{ keyVersion: 'v1', ciphertext: new Uint8Array(0) }, 'protection.envelope_ciphertext_invalid'],
      [{ keyVersion: 'v1', ciphertext: 'abc' }, 'protection.envelope_ciphertext_invalid'],
      [
        { keyVersion: 'v1', ciphertext: new Uint8Array(MAX_ENVELOPE_BYTES + 1) },
        'protection.envelope_too_large',
      ],
      [null, 'protection.envelope_version_invalid'],
    ]
    for (const [envelope, code] of cases) {
      expect(() => serializeProtectedEnvelope(envelope as ProtectedEnvelope)).toThrowError(
        expect.objectContaining({ code }),
      )
      expect(() => serializeProtectedEnvelope(envelope as ProtectedEnvelope)).toThrow(InvalidInputError)
    }
  })

  it('round-trips every byte value and a subarray view', () => {
    const backing = new Uint8Array(300).map((_, index) => index & 0xff)
    const view = backing.subarray(20, 290)
    const parsed = parseProtectedEnvelope(serializeProtectedEnvelope({ keyVersion: 'v1', ciphertext: view }))
    expect(parsed.ciphertext).toEqual(new Uint8Array(view))
  })
})
