import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import {
  ConfigurationError,
  InvalidInputError,
  isPortcullisError,
  PortcullisError,
} from './portcullis-error.js'

describe('PortcullisError', () => {
  it('carries a stable code and error class, and its subclass name', () => {
    const error = new ConfigurationError('protector.key_length', 'key material must be exactly 32 bytes')
    expect(error).toBeInstanceOf(PortcullisError)
    expect(error).toBeInstanceOf(Error)
    expect(error.code).toBe('protector.key_length')
    expect(error.errorClass).toBe('configuration')
    expect(error.name).toBe('ConfigurationError')
  })

  it('serializes to JSON without its cause', () => {
    const secret = 'sk_live_do_not_leak'
    const error = new InvalidInputError('input.blank', 'account id must not be blank', {
      cause: new Error(secret),
    })
    expect(error.cause).toBeInstanceOf(Error)
    expect(JSON.stringify(error)).not.toContain(secret)
    expect(error.toJSON()).toEqual({
      name: 'InvalidInputError',
      code: 'input.blank',
      errorClass: 'invalid-input',
      message: 'account id must not be blank',
    })
  })

  it('is recognised structurally, and plain errors are not', () => {
    expect(isPortcullisError(new PortcullisError('x', 'unavailable', 'down'))).toBe(true)
    const foreign = Object.assign(new Error('copy'), { code: 'x', errorClass: 'forbidden' })
    expect(isPortcullisError(foreign)).toBe(true)
    expect(isPortcullisError(new Error('plain'))).toBe(false)
    expect(isPortcullisError({ code: 'x', errorClass: 'forbidden' })).toBe(false)
    expect(inspect(new PortcullisError('x', 'forbidden', 'no'))).toContain("code: 'x'")
  })
})
