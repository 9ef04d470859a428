import { describe, expect, it } from 'vitest'
import { LocalAccountError } from '../errors.js'
import { normalizeUsername } from './username.js'

function refusal(input: unknown): LocalAccountError {
  try {
    normalizeUsername(input)
  } catch (error) {
    expect(error).toBeInstanceOf(LocalAccountError)
    return error as LocalAccountError
  }
  throw new Error('expected a refusal')
}

describe('normalizeUsername', () => {
  it('maps case variants, full-width forms and surrounding space to one name', () => {
    const variants = ['alice', 'Alice', 'ALICE', '  alice  ', 'ａｌｉｃｅ', 'ＡＬＩＣＥ', '\u3000Alice\t']
    for (const variant of variants) expect(normalizeUsername(variant)).toBe('alice')
  })

  it('makes composed and decomposed accents the same name', () => {
    const composed = 'jos\u00e9' // é as one code point
    const decomposed = 'jose\u0301' // e + combining acute
    expect(composed).not.toBe(decomposed)
    expect(normalizeUsername(composed)).toBe(normalizeUsername(decomposed))
    expect(normalizeUsername('JOSE\u0301')).toBe('jos\u00e9')
    expect(normalizeUsername('Ǆemal')).toBe(normalizeUsername('džemal'))
    expect(normalizeUsername('ﬁle')).toBe('file')
  })

  it('is stable: normalizing twice changes nothing', () => {
    for (const input of ['İstanbul', 'ΟΔΟΣ', 'Straße', 'ＡＢＣ①', 'x\u0307\u0323', 'K']) {
      const once = normalizeUsername(input)
      expect(normalizeUsername(once)).toBe(once)
    }
  })

  it('refuses what is not a string, and empty or blank names', () => {
    for (const input of [undefined, null, 42, ['alice'], { toString: () => 'alice' }]) {
      expect(refusal(input)).toMatchObject({ code: 'local.invalid_username', errorClass: 'invalid-input' })
    }
    for (const input of ['', '   ', '\u3000', '\t\n']) expect(refusal(input).message).toMatch(/empty/)
  })

  it('refuses more than 64 code points (counted after normalization), and huge input early', () => {
    expect(normalizeUsername('a'.repeat(64))).toHaveLength(64)
    expect(refusal('a'.repeat(65)).message).toMatch(/64/)
    expect(normalizeUsername('😀'.repeat(64))).toHaveLength(128)
    expect(() => normalizeUsername('😀'.repeat(65))).toThrow(/64/)
    // One compatibility character expands to many under NFKC.
    expect(() => normalizeUsername('\ufdfa'.repeat(4))).toThrow(/64/)
    expect(() => normalizeUsername('a'.repeat(100_000))).toThrow(LocalAccountError)
  })

  it('refuses control, format, unassigned and inner white-space characters', () => {
    for (const input of [
      'ali ce',
      'ali\tce',
      'ali\u00a0ce',
      'ali\u2028ce',
      'ali\u0000ce',
      'ali\u007fce',
      'ali\u200bce', // zero-width space
      'ali\u200dce', // zero-width joiner
      'ali\u202ece', // right-to-left override
      'ali\ufeffce', // byte order mark inside (at the ends it is trimmed as white space)
      'ali\ud800ce', // lone surrogate
      'ali\ue000ce', // private use
      'ali\u0378ce', // unassigned
    ]) {
      expect(refusal(input).code).toBe('local.invalid_username')
    }
  })

  it('never repeats the input in the error', () => {
    const error = refusal('secret-name\u0000')
    expect(error.message).not.toContain('secret-name')
    expect(JSON.stringify(error)).not.toContain('secret-name')
  })
})
