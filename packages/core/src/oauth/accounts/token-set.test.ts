import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { OAuthAccountError } from './errors.js'
import { requireInstant, requireScopes } from './input.js'
import { ProviderTokenSet } from './token-set.js'

const ACCESS = 'access-token-secret-value'
const REFRESH = 'refresh-token-secret-value'
const ID_TOKEN = 'id-token-secret-value'

function tokenSet(overrides: Record<string, unknown> = {}): ProviderTokenSet {
  return new ProviderTokenSet({
    accessToken: ACCESS,
    refreshToken: REFRESH,
    idToken: ID_TOKEN,
    scopes: ['openid', 'email', 'openid'],
    expiresAt: '2031-01-01T00:00:00Z',
    ...overrides,
  } as ConstructorParameters<typeof ProviderTokenSet>[0])
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run()
    return undefined
  } catch (error) {
    return error instanceof OAuthAccountError ? error.code : 'untyped'
  }
}

describe('ProviderTokenSet', () => {
  it('normalizes scopes (sorted, unique) and parses the expiry', () => {
    const tokens = tokenSet()
    expect(tokens.scopes).toEqual(['email', 'openid'])
    expect(tokens.expiresAt.toISOString()).toBe('2031-01-01T00:00:00.000Z')
    expect(tokens.tokenType).toBe('Bearer')
    expect([tokens.accessToken, tokens.refreshToken, tokens.idToken]).toEqual([ACCESS, REFRESH, ID_TOKEN])
  })

  it('never shows a token in inspect, JSON, string form or enumerable keys', () => {
    const tokens = tokenSet()
    const renderings = [
      inspect(tokens, { depth: 5, showHidden: true }),
      JSON.stringify(tokens),
      String(tokens),
    ]
    renderings.push(JSON.stringify(Object.entries(tokens)))
    for (const rendering of renderings) {
      for (const secret of [ACCESS, REFRESH, ID_TOKEN]) expect(rendering).not.toContain(secret)
    }
    expect(JSON.parse(JSON.stringify(tokens))).toMatchObject({
      accessToken: '[redacted]',
      refreshToken: '[redacted]',
    })
  })

  it('accepts bearer in any case and refuses other token types', () => {
    expect(tokenSet({ tokenType: 'bearer' }).tokenType).toBe('Bearer')
    expect(codeOf(() => tokenSet({ tokenType: 'DPoP' }))).toBe('oauth.account.invalid_input')
  })

  it.each([
    ['empty access token', { accessToken: '' }],
    ['access token with a space', { accessToken: 'two words' }],
    ['non-ASCII refresh token', { refreshToken: 'r\u00e9fresh' }],
    ['oversized access token', { accessToken: 'a'.repeat(16 * 1024 + 1) }],
    ['scope with a space', { scopes: ['open id'] }],
    ['scope string instead of list', { scopes: 'openid email' }],
    ['timezone-less expiry', { expiresAt: '2031-01-01T00:00:00' }],
    ['impossible expiry', { expiresAt: '2031-02-29T00:00:00Z' }],
    ['invalid Date expiry', { expiresAt: new Date('nope') }],
    ['numeric expiry', { expiresAt: 1_900_000_000 }],
  ])('refuses %s with a typed error', (_label, overrides) => {
    expect(codeOf(() => tokenSet(overrides))).toBe('oauth.account.invalid_input')
  })

  it('with() replaces fields and can drop the refresh token', () => {
    const rotated = tokenSet().with({ accessToken: 'new-access', refreshToken: null })
    expect(rotated.accessToken).toBe('new-access')
    expect(rotated.refreshToken).toBeNull()
    expect(rotated.idToken).toBe(ID_TOKEN)
  })
})

describe('instants and scopes', () => {
  it.each([
    ['2031-03-04T05:06:07Z', '2031-03-04T05:06:07.000Z'],
    ['2031-03-04T05:06:07.123456Z', '2031-03-04T05:06:07.123Z'],
    ['2031-03-04T07:06:07+02:00', '2031-03-04T05:06:07.000Z'],
    ['2031-03-04T00:06:07-05:00', '2031-03-04T05:06:07.000Z'],
  ])('reads %s as %s', (input, expected) => {
    expect(requireInstant(input, 'at').toISOString()).toBe(expected)
  })

  it.each([
    '2031-03-04T05:06:07',
    '2031-03-04',
    '2031-03-04T05:06Z',
    '2031-03-04T24:00:00Z',
    '2031-13-01T00:00:00Z',
    '2031-03-04T05:06:07+25:00',
    '2031-03-04t05:06:07z',
    'Tue, 04 Mar 2031 05:06:07 GMT',
  ])('refuses %s', (input) => {
    expect(codeOf(() => requireInstant(input, 'at'))).toBe('oauth.account.invalid_input')
  })

  it('returns a copy of a Date, so later mutation of the input has no effect', () => {
    const input = new Date('2031-03-04T05:06:07Z')
    const read = requireInstant(input, 'at')
    input.setUTCFullYear(1999)
    expect(read.getUTCFullYear()).toBe(2031)
  })

  it('accepts RFC 6749 scope tokens and refuses the excluded characters', () => {
    expect(requireScopes(['https://www.googleapis.com/auth/calendar.readonly', 'a!#[]~'])).toHaveLength(2)
    for (const bad of [
      [''],
      ['a b'],
      ['a"b'],
      ['a\\b'],
      ['\u00e9'],
      ['a\tb'],
      [null],
      Array(257).fill('s'),
    ]) {
      expect(codeOf(() => requireScopes(bad))).toBe('oauth.account.invalid_input')
    }
  })
})
