// Protected envelopes: the `pe1.<version>.<base64url>` string form is strict and canonical, round-trips,
// never amplifies, and a tampered envelope never opens under the AES-GCM protector.
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  AESGCMOAuthTransactionProtector,
  MAX_PLAINTEXT_BYTES,
} from '../../src/protection/aes-gcm-protector.js'
import { associatedData } from '../../src/protection/associated-data.js'
import {
  MAX_ENVELOPE_BYTES,
  parseProtectedEnvelope,
  serializeProtectedEnvelope,
} from '../../src/protection/envelope-format.js'
import { OAuthTransactionProtectorKey } from '../../src/protection/key.js'
import { type ProtectedEnvelope, ProtectedEnvelopeError } from '../../src/protection/protector.js'
import { anyText, BASE64URL_ALPHABET, b64u, linearIn, nearValid, outcome, RUNS, settled } from './support.js'

const versionArb = fc.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/)
const envelopeArb = fc.record({
  keyVersion: versionArb,
  ciphertext: fc.uint8Array({ minLength: 1, maxLength: 300 }),
})

/** Independent oracle of the string form: one regular expression, then decode-and-re-encode. */
function oracle(text: string): ProtectedEnvelope | undefined {
  const match = /^pe1\.([A-Za-z0-9._:-]{1,64})\.([A-Za-z0-9_-]+)$/.exec(text)
  if (match === null) return undefined
  const [, keyVersion = '', encoded = ''] = match
  const bytes = Buffer.from(encoded, 'base64url')
  if (
    bytes.byteLength === 0 ||
    bytes.byteLength > MAX_ENVELOPE_BYTES ||
    bytes.toString('base64url') !== encoded
  ) {
    return undefined
  }
  return { keyVersion, ciphertext: new Uint8Array(bytes) }
}

/** Parses, requiring that only the one documented error escapes. */
function parse(text: string): ProtectedEnvelope | undefined {
  const result = outcome(() => parseProtectedEnvelope(text))
  if (result.ok) return result.value
  expect(result.error).toBeInstanceOf(ProtectedEnvelopeError)
  expect(result.error.code).toBe('protection.envelope_rejected')
  return undefined
}

function checkAgainstOracle(text: string): void {
  const parsed = parse(text)
  const expected = oracle(text)
  expect(parsed === undefined).toBe(expected === undefined)
  if (parsed === undefined || expected === undefined) return
  expect(parsed.keyVersion).toBe(expected.keyVersion)
  expect(Buffer.from(parsed.ciphertext).equals(Buffer.from(expected.ciphertext))).toBe(true)
  // canonical: the accepted text is exactly what the serializer writes for the parsed value
  expect(serializeProtectedEnvelope(parsed)).toBe(text)
  // no amplification: base64url carries 6 bits per character
  expect(parsed.ciphertext.byteLength).toBeLessThanOrEqual(Math.ceil((text.length * 3) / 4))
}

describe('parseProtectedEnvelope under fuzzing', () => {
  it('agrees with the strict oracle on arbitrary text and throws only ProtectedEnvelopeError', () => {
    const text = fc.oneof(
      anyText(120),
      anyText(40).map((rest) => `pe1.${rest}`),
    )
    fc.assert(fc.property(text, checkAgainstOracle), { numRuns: RUNS.pure })
  })

  it('agrees with the oracle on mutated serialized envelopes (and accepts only canonical spellings)', () => {
    const mutated = nearValid(
      envelopeArb.map(serializeProtectedEnvelope),
      ['.', '=', '==', 'pe1.', 'pe2.', '+', '/', ':'],
      BASE64URL_ALPHABET,
    )
    fc.assert(fc.property(mutated, checkAgainstOracle), { numRuns: RUNS.pure })
  })

  it('round-trips: serialize then parse gives the same envelope', () => {
    fc.assert(
      fc.property(envelopeArb, (envelope) => {
        const parsed = parseProtectedEnvelope(serializeProtectedEnvelope(envelope))
        expect(parsed.keyVersion).toBe(envelope.keyVersion)
        expect(Buffer.from(parsed.ciphertext).equals(Buffer.from(envelope.ciphertext))).toBe(true)
      }),
      { numRuns: RUNS.pure },
    )
  })

  it('serialize refuses malformed envelopes with InvalidInputError only', () => {
    const bad = fc.record({
      keyVersion: fc.oneof(versionArb, anyText(80), fc.constant(undefined)),
      ciphertext: fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.constant(undefined), fc.string()),
    })
    fc.assert(
      fc.property(bad, (envelope) => {
        const result = outcome(() => serializeProtectedEnvelope(envelope as unknown as ProtectedEnvelope))
        if (!result.ok) expect(result.error.code).toMatch(/^protection\.envelope_/)
        else expect(oracle(result.value)).toBeDefined()
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('refuses a megabyte string before decoding it', () => {
    const huge = `pe1.v1.${'A'.repeat(1024 * 1024)}`
    const refused = linearIn(huge, () => outcome(() => parseProtectedEnvelope(huge)))
    expect(!refused.ok && refused.error instanceof ProtectedEnvelopeError).toBe(true)
    const justOver = `pe1.v1.${b64u(new Uint8Array(MAX_ENVELOPE_BYTES + 1))}`
    expect(() => parseProtectedEnvelope(justOver)).toThrow(ProtectedEnvelopeError)
    const atLimit = `pe1.v1.${b64u(new Uint8Array(MAX_ENVELOPE_BYTES).fill(7))}`
    expect(parseProtectedEnvelope(atLimit).ciphertext.byteLength).toBe(MAX_ENVELOPE_BYTES)
  })
})

describe('AES-GCM protector open path under fuzzing', () => {
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('2025-06', randomBytes(32)),
    retainedKeys: [new OAuthTransactionProtectorKey('2025-01', randomBytes(32))],
  })
  const aadArb = fc
    .tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }))
    .map(([id, op]) => associatedData('fuzz.secret.v1', `id:${id}`, `op:${op}`))

  async function rejected(envelope: ProtectedEnvelope, aad: Uint8Array): Promise<void> {
    const result = await settled(() => protector.unprotect(envelope, aad))
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error).toBeInstanceOf(ProtectedEnvelopeError)
  }

  it('never opens an envelope with a flipped bit, another version label, a cut or an extension', async () => {
    const tamper = fc.oneof(
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
      fc.record({
        kind: fc.constant('relabel' as const),
        version: fc.constantFrom('2025-01', '2024-12', '2025-06 '),
      }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('extend' as const),
        extra: fc.uint8Array({ minLength: 1, maxLength: 16 }),
      }),
    )
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), aadArb, tamper, async (plaintext, aad, change) => {
        const sealed = await protector.protect(plaintext, aad)
        expect(Buffer.from(await protector.unprotect(sealed, aad)).equals(Buffer.from(plaintext))).toBe(true)
        const bytes = Uint8Array.from(sealed.ciphertext)
        let tampered: ProtectedEnvelope
        switch (change.kind) {
          case 'flip': {
            const index = change.at % bytes.length
            bytes[index] = (bytes[index] as number) ^ (1 << change.bit)
            tampered = { keyVersion: sealed.keyVersion, ciphertext: bytes }
            break
          }
          case 'relabel':
            tampered = { keyVersion: change.version, ciphertext: bytes }
            break
          case 'truncate':
            tampered = {
              keyVersion: sealed.keyVersion,
              ciphertext: bytes.subarray(0, change.at % bytes.length),
            }
            break
          case 'extend':
            tampered = { keyVersion: sealed.keyVersion, ciphertext: Buffer.concat([bytes, change.extra]) }
            break
        }
        await rejected(tampered, aad)
      }),
      { numRuns: RUNS.crypto },
    )
  })

  it('never opens with other associated data', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 64 }), aadArb, aadArb, async (plaintext, aad, other) => {
        fc.pre(!Buffer.from(aad).equals(Buffer.from(other)))
        await rejected(await protector.protect(plaintext, aad), other)
      }),
      { numRuns: RUNS.crypto },
    )
  })

  it('never opens a mutated string form that still parses to a different envelope', async () => {
    const aad = associatedData('fuzz.secret.v1', 'record-1')
    const sealed = serializeProtectedEnvelope(
      await protector.protect(new TextEncoder().encode('refresh-token'), aad),
    )
    await fc.assert(
      fc.asyncProperty(nearValid(fc.constant(sealed), ['.', '2025-01'], BASE64URL_ALPHABET), async (text) => {
        const envelope = parse(text)
        if (envelope === undefined || text === sealed) return
        await rejected(envelope, aad)
      }),
      { numRuns: RUNS.crypto },
    )
  })

  it('answers garbage envelopes and associated data with ProtectedEnvelopeError only', async () => {
    const garbage = fc.record({
      keyVersion: fc.oneof(fc.constantFrom('2025-06', '2025-01'), anyText(70), fc.constant(undefined)),
      ciphertext: fc.oneof(
        fc.uint8Array({ maxLength: 64 }),
        fc.constant(new Uint8Array(28 + MAX_PLAINTEXT_BYTES + 1)),
        fc.constant(undefined),
        fc.string(),
      ),
    })
    const aad = fc.oneof(
      aadArb,
      fc.uint8Array({ maxLength: 32 }),
      fc.constant(undefined),
      fc.constant(new Uint8Array(20_000)),
    )
    await fc.assert(
      fc.asyncProperty(garbage, aad, async (envelope, data) => {
        await rejected(envelope as unknown as ProtectedEnvelope, data as unknown as Uint8Array)
      }),
      { numRuns: RUNS.structured },
    )
  })
})
