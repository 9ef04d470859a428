import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  EmailAddressError,
  isNormalizedEmailAddress,
  MAX_EMAIL_ADDRESS_OCTETS,
  MAX_LOCAL_PART_OCTETS,
  normalizeEmailAddress,
} from './email-address.js'

function refusal(input: unknown): EmailAddressError {
  try {
    normalizeEmailAddress(input)
  } catch (error) {
    expect(error).toBeInstanceOf(EmailAddressError)
    expect(error).toMatchObject({ code: 'email.invalid_address', errorClass: 'invalid-input' })
    return error as EmailAddressError
  }
  throw new Error(`expected a refusal of ${JSON.stringify(input)}`)
}

const atom = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]{1,12}$/)
const localPart = fc
  .array(fc.oneof(atom, fc.constantFrom('José', 'Zoë', 'δοκιμή', 'ｆｕｌｌ')), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.join('.'))
const label = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,10}$/)
const domain = fc
  .tuple(
    fc.array(fc.oneof(label, fc.constantFrom('Bücher', 'MÜNCHEN', 'пример')), { minLength: 1, maxLength: 3 }),
    label,
  )
  .map(([labels, tld]) => [...labels, tld].join('.'))
const address = fc.tuple(localPart, domain).map(([local, host]) => `${local}@${host}`)

describe('normalizeEmailAddress', () => {
  it('trims, lowers and IDNA-encodes the domain, keeps the local part as given', () => {
    expect(normalizeEmailAddress('  Alice.Smith@Example.COM  ')).toBe('Alice.Smith@example.com')
    expect(normalizeEmailAddress('kurt@Bücher.DE')).toBe('kurt@xn--bcher-kva.de')
    expect(normalizeEmailAddress('kurt@xn--bcher-kva.de')).toBe('kurt@xn--bcher-kva.de')
    expect(normalizeEmailAddress("o'brien+tag@example.org")).toBe("o'brien+tag@example.org")
  })

  it('puts the local part in NFC, so composed and decomposed accents are one address', () => {
    const composed = 'jos\u00e9@example.com'
    const decomposed = 'jose\u0301@example.com'
    expect(normalizeEmailAddress(decomposed)).toBe(composed)
    expect(normalizeEmailAddress(composed)).toBe(composed)
  })

  it('folds the local part only when configured', () => {
    expect(normalizeEmailAddress('Alice@Example.com')).toBe('Alice@example.com')
    expect(normalizeEmailAddress('Alice@Example.com', { foldLocalPartCase: true })).toBe('alice@example.com')
  })

  it('refuses CR, LF and every control or format character, at the ends too', () => {
    for (const input of [
      'a@example.com\r\n',
      'a@example.com\nBcc: x@evil.example',
      '\ra@example.com',
      'a\u0000@example.com',
      'a@exa\tmple.com',
      'a\u200b@example.com',
      'a\u202e@example.com',
      'a@example.com\u2028',
      'a\u007f@example.com',
    ]) {
      expect(refusal(input).reason).toBe('control-character')
    }
  })

  it('refuses a missing @ or more than one', () => {
    for (const input of ['alice.example.com', '', '   ', 'a@b@example.com']) {
      expect(refusal(input).reason).toBe('missing-at')
    }
  })

  it('refuses malformed local parts and domains', () => {
    for (const input of [
      '@example.com',
      '"a b"@example.com',
      'a b@example.com',
      '.a@example.com',
      'a..b@example.com',
      'a.@example.com',
      'a\\b@example.com',
      'a(comment)@example.com',
    ]) {
      expect(refusal(input).reason).toBe('local-part')
    }
    for (const input of [
      'a@',
      'a@example.com.',
      'a@[192.0.2.1]',
      'a@192.0.2.1',
      'a@-example.com',
      'a@exa_mple.com',
      'a@example..com',
      `a@${'x'.repeat(64)}.com`,
      // What a URL host parser would cut off or decode: never an address at `example.com`.
      'a@example.com/evil',
      'a@example.com?x',
      'a@example.com#x',
      'a@example.com\\x',
      'a@example.com:25',
      'a@exa%41mple.com',
      'a@example.com;x',
      'a@example.com\uFF0Fevil',
    ]) {
      expect(refusal(input).reason).toBe('domain')
    }
  })

  it('refuses over-long parts (RFC 5321: 64 octets local, 254 in all), counted in octets', () => {
    expect(normalizeEmailAddress(`${'a'.repeat(64)}@example.com`)).toHaveLength(76)
    expect(refusal(`${'a'.repeat(65)}@example.com`).reason).toBe('local-part-too-long')
    // 22 two-octet letters are 44 octets, 33 of them are 66.
    expect(refusal(`${'é'.repeat(33)}@example.com`).reason).toBe('local-part-too-long')
    const host = (length: number) =>
      Array.from({ length: Math.ceil(length / 50) }, () => 'x'.repeat(49))
        .join('.')
        .slice(0, length)
    const fits = `a@${host(252)}`
    expect(Buffer.byteLength(fits)).toBe(MAX_EMAIL_ADDRESS_OCTETS)
    expect(normalizeEmailAddress(fits)).toBe(fits)
    expect(refusal(`ab@${host(252)}`).reason).toBe('too-long')
    expect(refusal(`a@${'x'.repeat(2000)}`).reason).toBe('too-long')
  })

  it('refuses what is not a string', () => {
    for (const input of [undefined, null, 42, ['a@example.com'], { toString: () => 'a@example.com' }]) {
      expect(refusal(input).reason).toBe('not-a-string')
    }
  })

  it('never repeats the address in the message', () => {
    expect(refusal('secret.person@exa_mple.com').message).not.toContain('secret.person')
  })

  describe('properties', () => {
    it('is idempotent, and its output is accepted as normalized', () => {
      fc.assert(
        fc.property(address, fc.boolean(), (input, fold) => {
          const once = normalizeEmailAddress(input, { foldLocalPartCase: fold })
          expect(normalizeEmailAddress(once, { foldLocalPartCase: fold })).toBe(once)
          expect(isNormalizedEmailAddress(once)).toBe(true)
        }),
      )
    })

    it('keeps the local part (NFC) and lowers only the domain', () => {
      fc.assert(
        fc.property(localPart, domain, (local, host) => {
          const normalized = normalizeEmailAddress(`  ${local}@${host} `)
          const at = normalized.lastIndexOf('@')
          expect(normalized.slice(0, at)).toBe(local.normalize('NFC'))
          const ascii = normalized.slice(at + 1)
          expect(ascii).toBe(ascii.toLowerCase())
          expect(ascii).toMatch(/^[a-z0-9.-]+$/)
        }),
      )
    })

    it('refuses any address with a CR or LF anywhere in it', () => {
      fc.assert(
        fc.property(address, fc.nat(), fc.constantFrom('\r', '\n', '\r\n'), (input, position, breaker) => {
          const at = position % (input.length + 1)
          expect(refusal(input.slice(0, at) + breaker + input.slice(at)).reason).toBe('control-character')
        }),
      )
    })

    it('never answers an address over the RFC 5321 limits', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (input) => {
          let normalized: string
          try {
            normalized = normalizeEmailAddress(input)
          } catch (error) {
            expect(error).toBeInstanceOf(EmailAddressError)
            return
          }
          expect(Buffer.byteLength(normalized)).toBeLessThanOrEqual(MAX_EMAIL_ADDRESS_OCTETS)
          const local = normalized.slice(0, normalized.lastIndexOf('@'))
          expect(Buffer.byteLength(local)).toBeLessThanOrEqual(MAX_LOCAL_PART_OCTETS)
          expect(normalized).not.toMatch(/[\r\n]/)
        }),
      )
    })
  })
})
