// API keys `<prefix>_<keyId>_<secret>`: the parser agrees with an independent strict oracle, accepts one
// spelling per key, round-trips with the formatter, and the mechanism spends no store lookup on garbage.
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  API_KEY_ID_BYTES,
  API_KEY_SECRET_BYTES,
  formatApiKey,
  isCanonicalBase64url,
  parseApiKey,
} from '../../src/api-keys/api-key-format.js'
import { apiKey } from '../../src/api-keys/api-key-mechanism.js'
import { ApiKeyPepperRing } from '../../src/api-keys/api-key-pepper.js'
import { ApiKeyService } from '../../src/api-keys/api-key-service.js'
import { InstrumentedApiKeyStore } from '../support/api-key-store.js'
import { headerSource } from '../support/credential-source.js'
import { anyText, BASE64URL_ALPHABET, b64u, linearIn, nearValid, RUNS } from './support.js'

const prefixArb = fc.stringMatching(/^[A-Za-z0-9]{1,32}$/)
const keyArb = fc.record({
  prefix: prefixArb,
  keyId: fc.uint8Array({ minLength: API_KEY_ID_BYTES, maxLength: API_KEY_ID_BYTES }).map(b64u),
  secret: fc.uint8Array({ minLength: API_KEY_SECRET_BYTES, maxLength: API_KEY_SECRET_BYTES }).map(b64u),
})

/** Independent oracle: a regular expression for the layout, then decode-and-re-encode for canonical form. */
function oracle(value: string, prefix: string): { keyId: string; secret: string } | undefined {
  const match = new RegExp(`^${prefix}_([A-Za-z0-9_-]{16})_([A-Za-z0-9_-]{43})$`).exec(value)
  if (match === null) return undefined
  const [, keyId = '', secret = ''] = match
  const canonical = (text: string, bytes: number) => {
    const decoded = Buffer.from(text, 'base64url')
    return decoded.byteLength === bytes && decoded.toString('base64url') === text
  }
  if (!canonical(keyId, API_KEY_ID_BYTES) || !canonical(secret, API_KEY_SECRET_BYTES)) return undefined
  return { keyId, secret }
}

describe('parseApiKey under fuzzing', () => {
  it('agrees with the strict oracle on arbitrary text and never throws', () => {
    fc.assert(
      fc.property(prefixArb, anyText(120), (prefix, value) => {
        expect(parseApiKey(value, prefix)).toEqual(oracle(value, prefix))
      }),
      { numRuns: RUNS.pure },
    )
  })

  it('agrees with the oracle on mutated valid keys, and whatever it accepts is the one canonical spelling', () => {
    const mutated = keyArb.chain((key) =>
      nearValid(
        fc.constant(formatApiKey(key.prefix, key.keyId, key.secret)),
        ['_', '=', '+', '/', key.prefix],
        BASE64URL_ALPHABET,
      ).map((value) => ({ prefix: key.prefix, value })),
    )
    fc.assert(
      fc.property(mutated, ({ prefix, value }) => {
        const parts = parseApiKey(value, prefix)
        expect(parts).toEqual(oracle(value, prefix))
        if (parts !== undefined) {
          expect(formatApiKey(prefix, parts.keyId, parts.secret)).toBe(value)
          expect(value.length).toBe(prefix.length + 2 + parts.keyId.length + parts.secret.length)
        }
      }),
      { numRuns: RUNS.pure },
    )
  })

  it('round-trips every issued shape: format then parse gives the parts back', () => {
    fc.assert(
      fc.property(keyArb, ({ prefix, keyId, secret }) => {
        expect(parseApiKey(formatApiKey(prefix, keyId, secret), prefix)).toEqual({ keyId, secret })
      }),
      { numRuns: RUNS.pure },
    )
  })

  it('never accepts a second spelling of the same secret (spare low bits set in the last character)', () => {
    fc.assert(
      fc.property(keyArb, fc.integer({ min: 1, max: 3 }), ({ prefix, keyId, secret }, spare) => {
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
        const last = alphabet.indexOf(secret.charAt(secret.length - 1))
        const variant = `${secret.slice(0, -1)}${alphabet.charAt(last | spare)}`
        expect(Buffer.from(variant, 'base64url').equals(Buffer.from(secret, 'base64url'))).toBe(true)
        expect(parseApiKey(formatApiKey(prefix, keyId, variant), prefix)).toBeUndefined()
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('isCanonicalBase64url matches a decode-and-re-encode oracle', () => {
    const text = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9_+/=-]{0,60}$/),
      fc.uint8Array({ maxLength: 44 }).map(b64u),
      anyText(60),
    )
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 44 }), (value, bytes) => {
        const decoded = Buffer.from(value, 'base64url')
        const expected =
          /^[A-Za-z0-9_-]*$/.test(value) &&
          value.length === Math.ceil((bytes * 8) / 6) &&
          decoded.byteLength === bytes &&
          decoded.toString('base64url') === value
        expect(isCanonicalBase64url(value, bytes)).toBe(expected)
      }),
      { numRuns: RUNS.pure },
    )
  })

  it('refuses a megabyte value at once', () => {
    const huge = `pk_${'A'.repeat(1024 * 1024)}`
    expect(linearIn(huge, () => parseApiKey(huge, 'pk'))).toBeUndefined()
  })
})

describe('apiKey mechanism under fuzzing', () => {
  it('answers malformed values invalid with zero store lookups, and well-formed unknown ones with one', async () => {
    const store = new InstrumentedApiKeyStore()
    const service = new ApiKeyService({
      store,
      peppers: new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }),
      prefix: 'acme',
    })
    const mechanism = apiKey({ service })
    const issued = await service.issue({ ownerId: 'svc-fuzz' })
    const values = fc.oneof(
      anyText(120),
      nearValid(fc.constant(issued.value), ['_', 'acme', ', '], BASE64URL_ALPHABET),
      keyArb.map(({ keyId, secret }) => formatApiKey('acme', keyId, secret)),
    )
    await fc.assert(
      fc.asyncProperty(values, async (value) => {
        store.lookups = 0
        const result = await mechanism.authenticate(headerSource({ 'x-api-key': value }))
        const wellFormed = oracle(value, 'acme') !== undefined
        expect(store.lookups).toBe(wellFormed ? 1 : 0)
        if (value === issued.value) expect(result.kind).toBe('authenticated')
        else expect(result.kind).toBe('invalid')
      }),
      { numRuns: RUNS.structured },
    )
  })
})
