// Usernames (one canonical form per name a user would call the same) and the CSRF decision (an Origin
// header counts only when it is exactly a serialized origin) under arbitrary and look-alike input.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_USERNAME_LENGTH, normalizeUsername } from '../../src/local-accounts/passwords/username.js'
import {
  type CsrfCheckInput,
  checkCsrf,
  csrfTokenForSession,
} from '../../src/local-accounts/sessions/csrf.js'
import { anyText, LOOKALIKES, linearIn, nearValid, outcome, RUNS } from './support.js'

/** Refused inside a username, written independently of the implementation: \p{C} is Cc Cf Cs Co Cn. */
const FORBIDDEN = /[\p{C}\p{Z}\s]/u

function normalized(input: unknown): string | undefined {
  const result = outcome(() => normalizeUsername(input))
  if (result.ok) return result.value
  expect(result.error.code).toBe('local.invalid_username')
  return undefined
}

const fullWidth = (text: string) =>
  text.replace(/[!-~]/g, (char) => String.fromCharCode(char.charCodeAt(0) - 0x21 + 0xff01))

describe('normalizeUsername under fuzzing', () => {
  const names = fc.oneof(
    anyText(80),
    nearValid(fc.stringMatching(/^[a-z][a-z0-9._-]{0,20}$/), [
      ...LOOKALIKES,
      '\u0301',
      '\u00e9',
      'e\u0301',
      'ﬁ',
      'Ⅻ',
      'ẞ',
    ]),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 70 }),
  )

  it('answers a canonical, bounded name or the typed refusal, and is idempotent', () => {
    fc.assert(
      fc.property(names, (input) => {
        const name = normalized(input)
        if (name === undefined) return
        expect(name.length).toBeGreaterThan(0)
        expect([...name].length).toBeLessThanOrEqual(MAX_USERNAME_LENGTH)
        expect(FORBIDDEN.test(name)).toBe(false)
        expect(name.normalize('NFKC')).toBe(name)
        expect(name.toLowerCase()).toBe(name)
        // stored names are looked up again under the same function: it must be a fixed point
        expect(normalized(name)).toBe(name)
      }),
      { numRuns: RUNS.pure },
    )
  })

  it('maps case, full-width, surrounding space and decomposed forms of one name to one account', () => {
    const ascii = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,30}$/)
    fc.assert(
      fc.property(ascii, fc.constantFrom(' ', '\u3000', '\t', '\u00a0'), (name, space) => {
        const expected = name.toLowerCase()
        expect(normalized(name)).toBe(expected)
        expect(normalized(name.toUpperCase())).toBe(expected)
        expect(normalized(fullWidth(name))).toBe(expected)
        expect(normalized(`${space}${name}${space}`)).toBe(expected)
      }),
      { numRuns: RUNS.structured },
    )
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), (name) => {
        const composed = normalized(name.normalize('NFC'))
        expect(normalized(name.normalize('NFD'))).toBe(composed)
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('refuses non-strings and oversized input early', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        fc.pre(typeof value !== 'string')
        expect(normalized(value)).toBeUndefined()
      }),
      { numRuns: 100 },
    )
    const huge = '\ufdfa'.repeat(1_000_000)
    expect(linearIn(huge, () => normalized(huge))).toBeUndefined()
  })
})

describe('checkCsrf under fuzzing', () => {
  const TARGET = 'https://kiosk.example'
  const TRUSTED = ['https://admin.kiosk.example:8443']
  const asciiUpper = (value: string) => value.replace(/[a-z]/g, (char) => char.toUpperCase())
  const asciiLower = (value: string) => value.replace(/[A-Z]/g, (char) => char.toLowerCase())
  const TOKEN = csrfTokenForSession('session-1')

  /** The documented decision, with an ASCII-only origin comparison: the oracle. */
  function oracle(input: CsrfCheckInput): boolean {
    if (['GET', 'HEAD', 'OPTIONS', 'TRACE'].includes(asciiUpper(input.method))) return true
    const origin = input.origin === undefined ? undefined : asciiLower(input.origin)
    const isTarget = origin === TARGET
    const isTrusted = origin !== undefined && TRUSTED.includes(origin)
    const site = input.secFetchSite?.trim().toLowerCase()
    if (site === 'same-origin') return origin === undefined || input.origin === 'null' || isTarget
    if (site === 'same-site' || site === 'cross-site') return isTrusted
    if (origin !== undefined) return isTarget || isTrusted
    return input.presentedToken === TOKEN && input.expectedToken === TOKEN
  }

  const originArb = fc.oneof(
    fc.constantFrom(TARGET, 'https://KIOSK.example', ...TRUSTED, 'null', `${TARGET}:443`, `${TARGET}/`),
    // Unicode case look-alikes: the Kelvin sign lower-cases to k, long s and dotless i upper-case to S and I
    fc.constantFrom(TARGET, ...TRUSTED).map((origin) => origin.replace(/k/g, '\u212a')),
    nearValid(
      fc.constantFrom(TARGET, ...TRUSTED),
      ['/', '.', ':443', ':8443', '@', 'https://', 'http://', 'evil.', '%2e', '\u212a'],
      'abcdefghijklmnopqrstuvwxyz.:/',
    ),
    anyText(40),
  )
  const inputArb: fc.Arbitrary<CsrfCheckInput> = fc.record(
    {
      method: fc.oneof(
        fc.constantFrom(
          'POST',
          'PUT',
          'DELETE',
          'PATCH',
          'get',
          'post',
          'opt\u0131ons',
          'OPTION\u017f',
          'OPTIONS',
        ),
        anyText(8),
      ),
      secFetchSite: fc.oneof(
        fc.constantFrom('same-origin', 'same-site', 'cross-site', 'none', ' Same-Origin '),
        anyText(12),
      ),
      origin: originArb,
      presentedToken: fc.oneof(fc.constant(TOKEN), nearValid(fc.constant(TOKEN)), anyText(20)),
      expectedToken: fc.constant(TOKEN),
      targetOrigin: fc.constant(TARGET),
      trustedOrigins: fc.constant(TRUSTED),
    },
    { requiredKeys: ['method', 'targetOrigin', 'expectedToken', 'trustedOrigins'] },
  )

  it('agrees with the ASCII-exact oracle: look-alike origins and methods, odd tokens never pass', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const decision = outcome(() => checkCsrf(input))
        expect(decision.ok).toBe(true)
        if (decision.ok) expect(decision.value.ok).toBe(oracle(input))
      }),
      { numRuns: RUNS.pure },
    )
  })

  // Counterexamples fuzzing found (Unicode case folding: the Kelvin sign lower-cases to k, dotless i and
  // long s upper-case to I and S), fixed so that every run checks them.
  const folded: ReadonlyArray<readonly [string, Omit<CsrfCheckInput, 'targetOrigin' | 'expectedToken'>]> = [
    [
      'a Kelvin-sign origin never counts as the target',
      { method: 'POST', origin: 'https://\u212aiosk.example', secFetchSite: 'same-origin' },
    ],
    [
      'a Kelvin-sign origin without Fetch Metadata never counts as the target',
      { method: 'POST', origin: 'https://\u212aiosk.example' },
    ],
    [
      'a Kelvin-sign origin never counts as trusted',
      { method: 'POST', origin: 'https://admin.\u212aiosk.example:8443', secFetchSite: 'cross-site' },
    ],
    ['a dotless-i OPTIONS is not a safe method', { method: 'opt\u0131ons', origin: 'https://evil.example' }],
    ['a long-s OPTIONS is not a safe method', { method: 'OPTION\u017f', origin: 'https://evil.example' }],
  ]
  for (const [name, input] of folded) {
    it(`case folding: ${name}`, () => {
      const full: CsrfCheckInput = {
        ...input,
        targetOrigin: TARGET,
        trustedOrigins: TRUSTED,
        expectedToken: TOKEN,
      }
      expect(oracle(full)).toBe(false)
      expect(checkCsrf(full).ok).toBe(false)
    })
  }

  it('refuses a non-http(s) target origin with a ConfigurationError only', () => {
    fc.assert(
      fc.property(anyText(40), (target) => {
        const result = outcome(() => checkCsrf({ method: 'POST', targetOrigin: target, origin: target }))
        if (!result.ok) expect(result.error.code).toBe('local.invalid_config')
      }),
      { numRuns: RUNS.structured },
    )
  })
})
