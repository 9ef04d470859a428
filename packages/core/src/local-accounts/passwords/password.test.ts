import { describe, expect, it } from 'vitest'
import { ConfigurationError, isPortcullisError } from '../../errors/portcullis-error.js'
import { LocalAccountError } from '../errors.js'
import { passwordRules, validatePassword } from './password.js'

function refusal(run: () => unknown): LocalAccountError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(LocalAccountError)
    return error as LocalAccountError
  }
  throw new Error('expected a refusal')
}

describe('validatePassword', () => {
  it('returns an acceptable password unchanged', () => {
    expect(validatePassword('correct horse')).toBe('correct horse')
    expect(validatePassword('ünïcødé!')).toBe('ünïcødé!')
  })

  it('counts the minimum in code points, not UTF-16 units', () => {
    // Four astral characters are eight UTF-16 units but only four characters.
    expect(() => validatePassword('😀😀😀😀')).toThrow(LocalAccountError)
    expect(validatePassword('😀😀😀😀', { minLength: 4 })).toBe('😀😀😀😀')
    expect(() => validatePassword('1234567')).toThrow(/at least 8 characters/)
    expect(validatePassword('12345678')).toBe('12345678')
  })

  it('limits the UTF-8 byte length (default 1024) and is refused without echoing the password', () => {
    expect(validatePassword('a'.repeat(1024))).toHaveLength(1024)
    const secret = `${'s3cr3t-'.repeat(150)}`
    const error = refusal(() => validatePassword(secret))
    expect(error.code).toBe('local.invalid_password')
    expect(error.errorClass).toBe('invalid-input')
    expect(error.message).toContain('1024 bytes')
    expect(error.message).not.toContain('s3cr3t')
    expect(JSON.stringify(error)).not.toContain('s3cr3t')
    // 400 three-byte characters are 400 UTF-16 units but 1200 bytes.
    expect(() => validatePassword('€'.repeat(400))).toThrow(/1024 bytes/)
    expect(validatePassword('€'.repeat(341))).toHaveLength(341)
    expect(() => validatePassword('ab'.repeat(10), { maxBytes: 16 })).toThrow(/16 bytes/)
  })

  it('refuses non-strings and lone surrogates', () => {
    for (const value of [undefined, null, 12345678, ['password1'], { toString: () => 'password1' }]) {
      expect(refusal(() => validatePassword(value)).code).toBe('local.invalid_password')
    }
    expect(() => validatePassword('abcdefgh\ud800')).toThrow(/well-formed/)
    expect(() => validatePassword('\udc00abcdefgh')).toThrow(/well-formed/)
  })

  it('refuses nonsensical rules as configuration errors', () => {
    for (const rules of [
      { minLength: 0 },
      { minLength: 1.5 },
      { maxBytes: 0 },
      { maxBytes: 5000 },
      { minLength: 20, maxBytes: 10 },
    ]) {
      let error: unknown
      try {
        passwordRules(rules)
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(ConfigurationError)
      expect(isPortcullisError(error) && error.code).toBe('local.invalid_config')
    }
    expect(passwordRules()).toEqual({ minLength: 8, maxBytes: 1024 })
  })
})
