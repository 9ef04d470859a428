// The session cookie reader against an RFC 6265 oracle: only SP and HTAB around names and values, our
// name compared exactly, a duplicate or value-less occurrence is malformed, the value an opaque token.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  readSessionCookie,
  type SessionCookieRead,
  serializeSessionCookie,
  sessionCookie,
} from '../../src/local-accounts/sessions/session-cookie.js'
import { anyText, BASE64URL_ALPHABET, b64u, linearIn, nearValid, outcome, RUNS } from './support.js'

const cookie = sessionCookie()
const NAME = cookie.name
const VALUE = /^[A-Za-z0-9_-]{22,512}$/

const isOws = (char: string | undefined) => char === ' ' || char === '\t'
function stripStart(text: string): string {
  let index = 0
  while (isOws(text[index])) index++
  return text.slice(index)
}
function stripEnd(text: string): string {
  let index = text.length
  while (index > 0 && isOws(text[index - 1])) index--
  return text.slice(0, index)
}

/** RFC 6265 section 5.2 / 5.4 reading of a Cookie header: pairs split on `;`, whitespace is SP and HTAB. */
function oracle(header: string | readonly string[] | undefined): SessionCookieRead {
  if (header === undefined) return { kind: 'absent' }
  const values: Array<string | undefined> = []
  for (const line of typeof header === 'string' ? [header] : header) {
    if (typeof line !== 'string') continue
    for (const piece of line.split(';')) {
      const pair = stripEnd(stripStart(piece))
      const equals = pair.indexOf('=')
      const name = equals === -1 ? pair : stripEnd(pair.slice(0, equals))
      if (name === NAME) values.push(equals === -1 ? undefined : stripStart(pair.slice(equals + 1)))
    }
  }
  if (values.length === 0) return { kind: 'absent' }
  const [value] = values
  if (values.length > 1 || value === undefined || !VALUE.test(value)) return { kind: 'malformed' }
  return { kind: 'present', value }
}

const tokenArb = fc.uint8Array({ minLength: 16, maxLength: 48 }).map(b64u)
const otherCookie = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/), fc.stringMatching(/^[!#-+\--:<-[\]-~]{0,16}$/))
  .map(([name, value]) => `${name}=${value}`)
/** A realistic header: other cookies around ours, joined by `; ` as browsers do. */
const headerArb = fc
  .tuple(fc.array(otherCookie, { maxLength: 4 }), tokenArb, fc.array(otherCookie, { maxLength: 4 }))
  .map(([before, token, after]) => [...before, `${NAME}=${token}`, ...after].join('; '))

const near = nearValid(
  headerArb,
  [
    ';',
    '; ',
    '=',
    '"',
    ',',
    ' ',
    '\t',
    NAME,
    `${NAME}=`,
    `; ${NAME}=AAAAAAAAAAAAAAAAAAAAAAAA`,
    '__host-',
    '__Secure-',
  ],
  BASE64URL_ALPHABET,
)

function check(header: string | readonly string[] | undefined): void {
  const read = outcome(() => readSessionCookie(cookie, header))
  expect(read.ok).toBe(true)
  if (!read.ok) return
  expect(read.value).toEqual(oracle(header))
  // bounded output: the value is a substring of the input and at most 512 characters
  if (read.value.kind === 'present') expect(read.value.value.length).toBeLessThanOrEqual(512)
}

describe('readSessionCookie under fuzzing', () => {
  it('agrees with the RFC 6265 oracle on arbitrary text and never throws', () => {
    fc.assert(fc.property(anyText(120), check), { numRuns: RUNS.pure })
  })

  it('agrees with the oracle on mutated browser headers (planted duplicates, look-alike names, odd spacing)', () => {
    fc.assert(fc.property(near, check), { numRuns: RUNS.pure })
  })

  it('agrees with the oracle when the header arrives as several lines', () => {
    fc.assert(fc.property(fc.array(fc.oneof(near, headerArb, anyText(30)), { maxLength: 4 }), check), {
      numRuns: RUNS.structured,
    })
  })

  it('reads back exactly the value it serialized, with other cookies around it', () => {
    fc.assert(
      fc.property(tokenArb, fc.array(otherCookie, { maxLength: 3 }), (token, others) => {
        const pair = serializeSessionCookie(cookie, token).split(';')[0] ?? ''
        expect(readSessionCookie(cookie, [...others, pair].join('; '))).toEqual({
          kind: 'present',
          value: token,
        })
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('serializes only opaque tokens, refusing anything else with a typed error', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(40), tokenArb), (value) => {
        const result = outcome(() => serializeSessionCookie(cookie, value))
        expect(result.ok).toBe(VALUE.test(value))
        if (!result.ok) expect(result.error.code).toBe('local.invalid_input')
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('reads a megabyte header in linear time, long whitespace runs included', () => {
    const huge = `${'a=b; '.repeat(200_000)}${NAME}=${'A'.repeat(43)}`
    expect(linearIn(huge, () => readSessionCookie(cookie, huge))).toEqual({
      kind: 'present',
      value: 'A'.repeat(43),
    })
    const spaces = `${NAME}=${' \t'.repeat(500_000)}x${' '.repeat(500_000)}y`
    expect(linearIn(spaces, () => readSessionCookie(cookie, spaces))).toEqual({ kind: 'malformed' })
  })

  // The counterexample fuzzing found (a __Host- prefix bypass: String.prototype.trim also strips these),
  // fixed for every such space on either side of the name.
  for (const [label, space] of [
    ['no-break space', '\u00a0'],
    ['vertical tab', '\u000b'],
    ['form feed', '\u000c'],
    ['byte order mark', '\ufeff'],
    ['en quad', '\u2000'],
    ['ideographic space', '\u3000'],
  ] as const) {
    it(`Unicode trimming: a name led or followed by a ${label} is not ours`, () => {
      const token = 'A'.repeat(43)
      expect(readSessionCookie(cookie, `${space}${NAME}=${token}`)).toEqual({ kind: 'absent' })
      expect(readSessionCookie(cookie, `${NAME}${space}=${token}`)).toEqual({ kind: 'absent' })
      expect(readSessionCookie(cookie, `a=b; ${space}${NAME}=${token}`)).toEqual({ kind: 'absent' })
      expect(readSessionCookie(cookie, `a=b; ${NAME}=${token}`)).toEqual({ kind: 'present', value: token })
    })
  }

  it('never reads a cookie whose name only looks like ours after Unicode trimming as ours', () => {
    const planted = fc.tuple(
      fc.constantFrom('\u00a0', '\u000b', '\u000c', '\ufeff', '\u2000', '\u3000'),
      tokenArb,
    )
    fc.assert(
      fc.property(planted, fc.boolean(), ([space, token], before) => {
        const name = before ? `${space}${NAME}` : `${NAME}${space}`
        expect(readSessionCookie(cookie, `${name}=${token}`)).toEqual({ kind: 'absent' })
      }),
      { numRuns: 50 },
    )
  })
})
