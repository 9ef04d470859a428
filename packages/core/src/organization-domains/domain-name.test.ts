import { describe, expect, it } from 'vitest'
import { readDomainChallenge } from './challenge.js'
import { isFreeMailDomain, normalizeOrganizationDomain } from './domain-name.js'

const codeOf = (call: () => unknown): string => {
  try {
    call()
    return 'returned'
  } catch (error) {
    return String((error as { code?: unknown }).code)
  }
}

describe('normalizeOrganizationDomain', () => {
  it('lower-cases, trims and IDNA-encodes; a normalized domain stays as it is', () => {
    expect(normalizeOrganizationDomain('  Example.COM ')).toBe('example.com')
    expect(normalizeOrganizationDomain('Bücher.example')).toBe('xn--bcher-kva.example')
    expect(normalizeOrganizationDomain('xn--bcher-kva.example')).toBe('xn--bcher-kva.example')
    expect(normalizeOrganizationDomain('eng.corp.example.co.uk')).toBe('eng.corp.example.co.uk')
  })

  it.each([
    ['a single label', 'localhost'],
    ['a top-level name', 'com'],
    ['an IPv4 address', '192.0.2.1'],
    ['an IPv6 literal', '[2001:db8::1]'],
    ['a trailing dot', 'example.com.'],
    ['a leading dot', '.example.com'],
    ['an empty label', 'example..com'],
    ['a space inside', 'exa mple.com'],
    ['a newline', 'example.com\n.evil'],
    ['a zero-width joiner', 'exa\u200dmple.com'],
    ['an underscore label', '_dmarc.example.com'],
    ['a label over 63 octets', `${'a'.repeat(64)}.example`],
    ['a name over 253 octets', `${`${'a'.repeat(60)}.`.repeat(5)}example`],
    ['a path', 'example.com/evil'],
    ['a query', 'example.com?x'],
    ['a fragment', 'example.com#x'],
    ['a backslash', 'example.com\\x'],
    ['a percent escape', 'exa%41mple.com'],
    ['a port', 'example.com:443'],
    ['credentials', 'user@example.com'],
    ['not a string', 42],
  ])('refuses %s', (_name, input) => {
    expect(codeOf(() => normalizeOrganizationDomain(input))).toBe('organization_domains.invalid_domain')
  })
})

describe('isFreeMailDomain', () => {
  const list = new Set(['gmail.com', 'outlook.com', 'yahoo.co.uk'])

  it('matches the listed domain and every subdomain of it, nothing else', () => {
    expect(isFreeMailDomain('gmail.com', list)).toBe(true)
    expect(isFreeMailDomain('mail.gmail.com', list)).toBe(true)
    expect(isFreeMailDomain('uk.yahoo.co.uk', list)).toBe(true)
    expect(isFreeMailDomain('co.uk', list)).toBe(false)
    expect(isFreeMailDomain('notgmail.com', list)).toBe(false)
    expect(isFreeMailDomain('gmail.com.example', list)).toBe(false)
  })
})

describe('readDomainChallenge', () => {
  const token = 'T'.repeat(43)
  const value = `portcullis-domain-verification=${token}`

  it('matches a record equal to the value, its pieces joined and white space around it ignored', () => {
    expect(readDomainChallenge([[value]], token)).toBe('match')
    expect(readDomainChallenge([['v=spf1 -all'], [value.slice(0, 10), value.slice(10)]], token)).toBe('match')
    expect(readDomainChallenge([[` ${value} `]], token)).toBe('match')
  })

  it("tells another claim's record from no record at all", () => {
    expect(readDomainChallenge([[`portcullis-domain-verification=${'U'.repeat(43)}`]], token)).toBe(
      'mismatch',
    )
    expect(readDomainChallenge([['v=spf1 -all']], token)).toBe('missing')
    expect(readDomainChallenge([], token)).toBe('missing')
  })

  it('never matches a record that only contains or extends the value', () => {
    expect(readDomainChallenge([[`${value}x`]], token)).toBe('mismatch')
    expect(readDomainChallenge([[`x${value}`]], token)).toBe('missing')
    expect(readDomainChallenge([[`${value} ${value}`]], token)).toBe('mismatch')
  })
})
