import { describe, expect, it } from 'vitest'
import { pooledNonceSource } from './nonce-source.js'

describe('pooledNonceSource', () => {
  it('hands out each nonce once, across pool refills, as independent copies', () => {
    const next = pooledNonceSource(12)
    const seen = new Set<string>()
    for (let i = 0; i < 1000; i++) {
      const nonce = next()
      expect(nonce.byteLength).toBe(12)
      expect(nonce.buffer.byteLength).toBe(12)
      seen.add(Buffer.from(nonce).toString('hex'))
      nonce.fill(0)
    }
    expect(seen.size).toBe(1000)
  })
})
