import { describe, expect, it } from 'vitest'
import { DIGIT_ALPHABET, generateCode, generateFlowId, UNAMBIGUOUS_ALPHABET } from './generate.js'

describe('generateCode', () => {
  it('draws six digits by default and the asked length from the asked alphabet', () => {
    expect(generateCode()).toMatch(/^[0-9]{6}$/)
    const code = generateCode({ length: 8, alphabet: UNAMBIGUOUS_ALPHABET })
    expect(code).toHaveLength(8)
    for (const character of code) expect(UNAMBIGUOUS_ALPHABET).toContain(character)
  })

  it('throws away bytes that would bias the draw (bytes of 250 and above for ten digits)', () => {
    // 250..255 would make 0..5 likelier than 6..9 under a plain modulo; they must be skipped.
    const feed = [250, 251, 255, 9, 252, 19, 29, 39, 49, 59]
    let offset = 0
    const randomBytes = (size: number) => {
      const bytes = new Uint8Array(size)
      for (let index = 0; index < size; index += 1) bytes[index] = feed[offset++ % feed.length] ?? 0
      return bytes
    }
    expect(generateCode({ length: 6, alphabet: DIGIT_ALPHABET, randomBytes })).toBe('999999')
  })

  it('is uniform over the alphabet (chi-square over 60 000 digits)', () => {
    const counts = new Array<number>(10).fill(0)
    for (let index = 0; index < 10_000; index += 1) {
      for (const digit of generateCode({ length: 6 }))
        counts[Number(digit)] = (counts[Number(digit)] ?? 0) + 1
    }
    const expected = 6000
    const chiSquare = counts.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0)
    // A sanity check (9 degrees of freedom, p = 0.0001 at 33.7); the bias itself is shown above.
    expect(chiSquare).toBeLessThan(33.7)
  })

  it('refuses lengths and alphabets a person could not type or that repeat characters', () => {
    for (const options of [
      { length: 3 },
      { length: 65 },
      { length: 6.5 },
      { alphabet: '0' },
      { alphabet: '0123456789 ' },
      { alphabet: 'AAB' },
    ]) {
      expect(() => generateCode(options)).toThrow(expect.objectContaining({ code: 'codes.invalid_input' }))
    }
  })
})

describe('generateFlowId', () => {
  it('is 128 random bits in base64url (22 characters) and does not repeat', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => generateFlowId()))
    expect(ids.size).toBe(1000)
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(generateFlowId(() => new Uint8Array(16).fill(255))).toBe('_____________________w')
  })
})
