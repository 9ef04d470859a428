import { describe, expect, it } from 'vitest'
import { MailError } from './errors.js'
import { requireMailAddress, requireMailbox } from './headers.js'

function failure(run: () => unknown): MailError {
  try {
    run()
  } catch (error) {
    if (error instanceof MailError) return error
    throw error
  }
  throw new Error('expected a MailError')
}

describe('addresses', () => {
  it.each([
    'ada@example.com',
    'Ada.Lovelace+mail@Example.COM',
    "o'brien@mail.example.org",
    'ünïcode@exämple.de',
    'a@xn--exmple-cua.de',
  ])('accepts %s unchanged', (address) => {
    expect(requireMailAddress(address)).toBe(address)
  })

  it.each([
    ['ada@example.com\r\nBcc: eve@evil.example', 'mail.header_injection'],
    ['ada@example.com\nBcc: eve@evil.example', 'mail.header_injection'],
    ['ada\u0000@example.com', 'mail.header_injection'],
    ['ada@example.com\u2028', 'mail.header_injection'],
    ['ada@exa\u202emple.com', 'mail.header_injection'],
    ['ada@example.com, eve@evil.example', 'mail.invalid_address'],
    ['Ada <ada@example.com>', 'mail.invalid_address'],
    ['"ada lovelace"@example.com', 'mail.invalid_address'],
    ['ada lovelace@example.com', 'mail.invalid_address'],
    ['ada@evil.example@example.com', 'mail.invalid_address'],
    ['ada@', 'mail.invalid_address'],
    ['@example.com', 'mail.invalid_address'],
    ['ada', 'mail.invalid_address'],
    ['ada..lovelace@example.com', 'mail.invalid_address'],
    ['.ada@example.com', 'mail.invalid_address'],
    ['ada@localhost', 'mail.invalid_address'],
    ['ada@[127.0.0.1]', 'mail.invalid_address'],
    ['ada@127.0.0.1', 'mail.invalid_address'],
    ['ada@-example.com', 'mail.invalid_address'],
    ['ada@example.com/path', 'mail.invalid_address'],
    ['ada@ex ample.com', 'mail.invalid_address'],
    [`${'a'.repeat(65)}@example.com`, 'mail.invalid_address'],
    [`ada@${`${'b'.repeat(60)}.`.repeat(5)}com`, 'mail.invalid_address'],
    [`ada@${'b'.repeat(64)}.com`, 'mail.invalid_address'],
    ['', 'mail.invalid_address'],
  ])('refuses %j as %s, naming the field and not the value', (address, code) => {
    const error = failure(() => requireMailAddress(address, 'to.address'))
    expect(error.code).toBe(code)
    expect(error.retryable).toBe(false)
    expect(error.field).toBe('to.address')
    expect(error.message).not.toContain('evil')
  })

  it('refuses a value that is not a string', () => {
    expect(failure(() => requireMailAddress(42)).code).toBe('mail.invalid_address')
  })
})

describe('mailboxes (an address and a display name)', () => {
  it('keeps a name with quotes, angle brackets and commas: the transport quotes or encodes it', () => {
    expect(requireMailbox({ address: 'ada@example.com', name: '"Ada", <Countess>' }, 'to')).toEqual({
      address: 'ada@example.com',
      name: '"Ada", <Countess>',
    })
  })

  it('drops members other than the address and the name', () => {
    expect(requireMailbox({ address: 'ada@example.com', bcc: 'eve@evil.example' }, 'to')).toEqual({
      address: 'ada@example.com',
    })
  })

  it.each([
    'Ada\r\nBcc: eve@evil.example',
    'Ada\nSubject: free money',
    'Ada\rX: y',
    'Ada\u0085',
    'Ada\u2029',
    'Ada\t',
    'Ada\u001b[31m',
    'Ada\u2066evil\u2069',
    '=?UTF-8?B?QWRhDQpCY2M6IGV2ZUBldmlsLmV4YW1wbGU=?=',
    'Ada =?utf-8?q?=0D=0ABcc=3A_eve@evil.example?=',
  ])('refuses the name %j (mail.header_injection at to.name)', (name) => {
    const error = failure(() => requireMailbox({ address: 'ada@example.com', name }, 'to'))
    expect(error.code).toBe('mail.header_injection')
    expect(error.field).toBe('to.name')
  })

  it('keeps a name with = and ? that is no encoded word', () => {
    expect(requireMailbox({ address: 'ada@example.com', name: 'Ada =? Lovelace ?=' }, 'to').name).toBe(
      'Ada =? Lovelace ?=',
    )
  })

  it('refuses a blank or overlong name', () => {
    expect(failure(() => requireMailbox({ address: 'ada@example.com', name: ' ' }, 'to')).code).toBe(
      'mail.invalid_message',
    )
    expect(
      failure(() => requireMailbox({ address: 'ada@example.com', name: 'a'.repeat(257) }, 'to')).code,
    ).toBe('mail.invalid_message')
  })
})
