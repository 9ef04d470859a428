import { randomBytes, randomInt } from 'node:crypto'
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
    for (let i = 0; i < 5000; i++) {
      const bytes = [12, 32][i % 2] ?? 12
      const length = Math.ceil((bytes * 8) / 6) + randomInt(-1, 2)
      const value =
        i % 3 === 0
          ? randomBytes(bytes).toString('base64url')
          : Array.from({ length }, () => alphabet.charAt(randomInt(alphabet.length))).join('')
      expect(isCanonicalBase64url(value, bytes)).toBe(reference(value, bytes))
    }
  })
})
