import type { ProtectedEnvelope } from '@portcullis/core/protection'
import { expectRejected, hex } from './expectations.js'
import { AAD, case_, seal, withCiphertext } from './protector-subject.js'

/** Cases that feed the protector damaged or malformed envelopes; each must be refused with the typed error. */
export const tamperCases = [
  case_('protector.bit-flip', 'every single-bit flip of the ciphertext is rejected', async (s, check) => {
    const envelope = await seal(s)
    for (let bit = 0; bit < envelope.ciphertext.byteLength * 8; bit++) {
      const tampered = new Uint8Array(envelope.ciphertext)
      tampered[bit >> 3] = (tampered[bit >> 3] ?? 0) ^ (1 << (bit & 7))
      await expectRejected(
        check,
        () => s.protector.unprotect(withCiphertext(envelope, tampered), AAD),
        `bit ${bit} flipped`,
      )
    }
  }),

  case_(
    'protector.byte-substitution',
    'every single-byte substitution of the ciphertext is rejected',
    async (s, check) => {
      const envelope = await seal(s, 'short')
      for (let index = 0; index < envelope.ciphertext.byteLength; index++) {
        for (let value = 0; value < 256; value++) {
          if (value === envelope.ciphertext[index]) continue
          const tampered = new Uint8Array(envelope.ciphertext)
          tampered[index] = value
          await expectRejected(
            check,
            () => s.protector.unprotect(withCiphertext(envelope, tampered), AAD),
            `byte ${index} set to ${value}`,
          )
        }
      }
    },
  ),

  case_(
    'protector.truncation',
    'every truncation or extension of the ciphertext is rejected',
    async (s, check) => {
      const envelope = await seal(s)
      for (let length = 0; length < envelope.ciphertext.byteLength; length++) {
        const truncated = envelope.ciphertext.slice(0, length)
        await expectRejected(
          check,
          () => s.protector.unprotect(withCiphertext(envelope, truncated), AAD),
          `truncated to ${length}`,
        )
      }
      for (const extra of [1, 16, 64]) {
        const extended = new Uint8Array([...envelope.ciphertext, ...new Uint8Array(extra)])
        await expectRejected(
          check,
          () => s.protector.unprotect(withCiphertext(envelope, extended), AAD),
          `extended by ${extra}`,
        )
      }
    },
  ),

  case_(
    'protector.malformed-envelope',
    'malformed envelopes are rejected with the typed error, never a crash',
    async (s, check) => {
      const envelope = await seal(s)
      const malformed: unknown[] = [
        null,
        undefined,
        {},
        { keyVersion: envelope.keyVersion },
        { ciphertext: envelope.ciphertext },
        { keyVersion: envelope.keyVersion, ciphertext: new Uint8Array(0) },
        { keyVersion: envelope.keyVersion, ciphertext: hex(envelope.ciphertext) },
        { keyVersion: envelope.keyVersion, ciphertext: [...envelope.ciphertext] },
        { keyVersion: 1, ciphertext: envelope.ciphertext },
      ]
      for (const [index, candidate] of malformed.entries()) {
        await expectRejected(
          check,
          () => s.protector.unprotect(candidate as ProtectedEnvelope, AAD),
          `malformed envelope #${index}`,
        )
      }
    },
  ),
]
