import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { LocalAccountError } from './errors.js'
import { digestOpaqueToken, newOpaqueToken } from './opaque-token.js'

describe('newOpaqueToken', () => {
  it('is 32 random bytes in base64url by default, and different every time', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => newOpaqueToken()))
    expect(tokens.size).toBe(100)
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(newOpaqueToken(16)).toMatch(/^[A-Za-z0-9_-]{22}$/)
  })

  it('encodes exactly the bytes of the injected random source', () => {
    const bytes = new Uint8Array(48).map((_, index) => index)
    expect(newOpaqueToken(48, () => bytes)).toBe(Buffer.from(bytes).toString('base64url'))
    // A view into a larger buffer encodes only its own bytes.
    const backing = new Uint8Array(64).fill(0xaa)
    const view = backing.subarray(8, 24).fill(1)
    expect(newOpaqueToken(16, () => view)).toBe(Buffer.alloc(16, 1).toString('base64url'))
  })

  it('enforces at least 16 bytes and a random source of the right length', () => {
    for (const size of [0, 8, 15, 15.5, 257, Number.NaN]) {
      expect(() => newOpaqueToken(size)).toThrow(LocalAccountError)
    }
    expect(() => newOpaqueToken(32, () => new Uint8Array(16))).toThrow(
      expect.objectContaining({ code: 'local.randomness_failed' }),
    )
  })
})

describe('digestOpaqueToken', () => {
  it('is the SHA-256 hex of the token, which is what stores keep', () => {
    const token = newOpaqueToken()
    const digest = digestOpaqueToken(token)
    expect(digest).toBe(createHash('sha256').update(token).digest('hex'))
    expect(digest).toMatch(/^[0-9a-f]{64}$/)
    expect(digestOpaqueToken(token)).toBe(digest)
    expect(digestOpaqueToken(`${token}x`)).not.toBe(digest)
  })

  it('refuses empty and non-string tokens', () => {
    expect(() => digestOpaqueToken('')).toThrow(LocalAccountError)
    expect(() => digestOpaqueToken(42 as unknown as string)).toThrow(LocalAccountError)
  })
})
