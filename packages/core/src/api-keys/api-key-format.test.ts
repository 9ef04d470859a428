import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatApiKey, isCanonicalBase64url, parseApiKey } from './api-key-format.js'

const keyId = Buffer.alloc(12, 0xfb).toString('base64url') // "-_-_..." shows ids may contain _ and -
const secret = Buffer.alloc(32, 7).toString('base64url')

describe('API key wire format', () => {
  it('is <prefix>_<16 chars>_<43 chars>, parsed by fixed lengths even when the id contains _', () => {
    expect(keyId).toContain('_')
    const value = formatApiKey('acme', keyId, secret)
    expect(value).toMatch(/^acme_[A-Za-z0-9_-]{16}_[A-Za-z0-9_-]{43}$/)
    expect(value).toHaveLength(4 + 61)
    expect(parseApiKey(value, 'acme')).toEqual({ keyId, secret })
  })

  it('accepts only the canonical spelling of each part', () => {
    expect(isCanonicalBase64url(secret, 32)).toBe(true)
    // 43 chars carry 258 bits for 256: the last char has 2 spare bits, and flipping one changes no byte.
    const twin = `${secret.slice(0, -1)}${secret.at(-1) === 'c' ? 'd' : 'c'}`
    expect(Buffer.from(twin, 'base64url')).toEqual(Buffer.from(secret, 'base64url'))
    expect(isCanonicalBase64url(twin, 32)).toBe(false)
    expect(parseApiKey(formatApiKey('acme', keyId, twin), 'acme')).toBeUndefined()
  })

  it('agrees with a decode-and-re-encode reference on random spellings', () => {
    // url-safe, standard-only, padding, control, Latin-1 and non-Latin-1 characters
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=\u0000\u007féÿ€'
    const reference = (value: string, bytes: number) =>
      /^[A-Za-z0-9_-]+$/.test(value) &&
      Buffer.from(value, 'base64url').length === bytes &&
      Buffer.from(value, 'base64url').toString('base64url') === value
    const spelling = fc.constantFrom(12, 32).chain((bytes) => {
      const length = Math.ceil((bytes * 8) / 6)
      return fc
        .oneof(
          fc
            .uint8Array({ minLength: bytes, maxLength: bytes })
            .map((drawn) => Buffer.from(drawn).toString('base64url')),
          fc
            .array(fc.constantFrom(...alphabet), { minLength: length - 1, maxLength: length + 1 })
            .map((chars) => chars.join('')),
        )
        .map((value) => ({ value, bytes }))
    })
    // fast-check prints the seed of a failing run; FC_SEED and FC_PATH replay it (CONTRIBUTING.md)
    fc.assert(
      fc.property(spelling, ({ value, bytes }) => {
        expect(isCanonicalBase64url(value, bytes)).toBe(reference(value, bytes))
      }),
      { numRuns: 5000 },
    )
  })
})
