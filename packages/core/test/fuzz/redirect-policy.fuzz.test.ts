// return_to and callback URIs: request values are allowed only by exact membership, and whatever the
// configuration accepts stays on a callback origin when a browser resolves it as a Location.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { OAuthTransactionInvalidError } from '../../src/oauth/transactions/errors.js'
import { OAuthRedirectPolicy } from '../../src/oauth/transactions/redirect-policy.js'
import { anyText, nearValid, outcome, RUNS } from './support.js'

const ORIGIN = 'https://app.example'
const CALLBACK = `${ORIGIN}/auth/oauth/acme/callback`
const OTHER_CALLBACK = `${ORIGIN}/auth/oauth/other/callback`
const RETURN_TO = ['/', '/settings', '/a/b?x=1', `${ORIGIN}/welcome`]

/** Ways out of the allow-list: scheme-relative, backslashes, encoded slashes, userinfo, look-alike dots. */
const ESCAPES = [
  '//evil.example',
  '/\\evil.example',
  '\\\\evil.example',
  '/%2F%2Fevil.example',
  '%2f%2fevil.example',
  '@evil.example',
  'https://app.example@evil.example/',
  'https://evil.example/',
  'https://app.example.evil.example/',
  'https://app\u3002example/',
  'https://app\uff0eexample/',
  'https:evil.example',
  'javascript:alert(1)',
  '/\t/evil.example',
  '/../',
  '?next=//evil',
  '#',
  ' ',
  '\u2215\u2215evil.example',
  'HTTPS://APP.EXAMPLE/',
]

const policy = new OAuthRedirectPolicy({
  callbackUris: { acme: [CALLBACK], other: [OTHER_CALLBACK] },
  returnTo: RETURN_TO,
})

describe('OAuthRedirectPolicy.allows under fuzzing', () => {
  const returnTo = fc.oneof(
    fc.constantFrom(...RETURN_TO),
    nearValid(fc.constantFrom(...RETURN_TO), ESCAPES),
    anyText(40),
  )
  const redirect = fc.oneof(
    fc.constantFrom(CALLBACK, OTHER_CALLBACK),
    nearValid(fc.constantFrom(CALLBACK), ESCAPES),
  )
  const provider = fc.oneof(
    fc.constantFrom('acme', 'other', 'ACME', '__proto__', 'toString', 'constructor'),
    anyText(8),
  )

  it('allows exactly the configured pairs, and refuses everything else with the typed error', () => {
    const callbacks: Record<string, string> = { acme: CALLBACK, other: OTHER_CALLBACK }
    fc.assert(
      fc.property(provider, redirect, returnTo, (name, uri, target) => {
        const expected =
          Object.hasOwn(callbacks, name) && callbacks[name] === uri && RETURN_TO.includes(target)
        expect(policy.allows(name, uri, target)).toBe(expected)
        const validated = outcome(() => policy.validate(name, uri, target))
        expect(validated.ok).toBe(expected)
        if (!validated.ok) {
          expect(validated.error).toBeInstanceOf(OAuthTransactionInvalidError)
          expect(validated.error.code).toBe('oauth.transaction.redirect_not_allowed')
        }
      }),
      { numRuns: RUNS.pure },
    )
  })
})

describe('OAuthRedirectPolicy configuration under fuzzing', () => {
  const candidate = fc.oneof(
    nearValid(fc.constantFrom('/', '/next', `${ORIGIN}/next`, `${ORIGIN}/`), ESCAPES, 'abc/.:%@'),
    fc.constantFrom(...ESCAPES),
    anyText(30),
  )

  it('accepts only return targets a browser resolves to a callback origin; refuses the rest with a typed error', () => {
    fc.assert(
      fc.property(fc.array(candidate, { minLength: 1, maxLength: 3 }), (entries) => {
        const built = outcome(
          () => new OAuthRedirectPolicy({ callbackUris: { acme: [CALLBACK] }, returnTo: entries }),
        )
        if (!built.ok) {
          expect(built.error.code).toBe('oauth.redirect_policy.invalid')
          return
        }
        for (const entry of entries) {
          // a Location header value, resolved against the callback the browser is on
          const resolved = new URL(entry, CALLBACK)
          expect(resolved.origin).toBe(ORIGIN)
          expect(resolved.username + resolved.password).toBe('')
          expect(entry.startsWith('//')).toBe(false)
          // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
          expect(/[\\ \u0000-\u001f\u007f]/.test(entry)).toBe(false)
          expect(built.value.allows('acme', CALLBACK, entry)).toBe(true)
        }
      }),
      { numRuns: RUNS.pure },
    )
  })

  it('accepts only canonical https callback URIs without userinfo, fragment or wildcard', () => {
    const uri = fc.oneof(nearValid(fc.constantFrom(CALLBACK), ESCAPES, 'abc/.:%@#*'), anyText(40))
    fc.assert(
      fc.property(uri, fc.boolean(), (value, insecureLocalhost) => {
        const built = outcome(
          () =>
            new OAuthRedirectPolicy({
              callbackUris: { acme: [value] },
              allowInsecureLocalhost: insecureLocalhost,
            }),
        )
        if (!built.ok) {
          expect(built.error.code).toBe('oauth.redirect_policy.invalid')
          return
        }
        const url = new URL(value)
        expect(url.href).toBe(value)
        expect(url.username + url.password + url.hash).toBe('')
        const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)
        expect(url.protocol === 'https:' || (insecureLocalhost && loopback && url.protocol === 'http:')).toBe(
          true,
        )
        expect(built.value.allows('acme', value, '/')).toBe(true)
      }),
      { numRuns: RUNS.pure },
    )
  })
})
