import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../src/errors/index.js'
import { OAuthRedirectPolicy, OAuthTransactionInvalidError } from '../../src/oauth/transactions/index.js'

const CALLBACK = 'https://app.example/auth/oauth/acme/callback'

function configError(options: ConstructorParameters<typeof OAuthRedirectPolicy>[0]): string {
  try {
    new OAuthRedirectPolicy(options)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError)
    return (error as ConfigurationError).message
  }
  throw new Error('expected the policy to be refused')
}

describe('OAuthRedirectPolicy', () => {
  const policy = new OAuthRedirectPolicy({
    callbackUris: { acme: [CALLBACK], other: ['https://app.example/auth/oauth/other/callback'] },
    returnTo: ['/', '/settings', 'https://app.example/welcome'],
  })

  it('allows exactly the configured callback and return targets', () => {
    expect(policy.allows('acme', CALLBACK, '/')).toBe(true)
    expect(policy.allows('acme', CALLBACK, 'https://app.example/welcome')).toBe(true)
    expect(() => policy.validate('acme', CALLBACK, '/settings')).not.toThrow()
  })

  it('refuses near misses of callback and return target, compared exactly', () => {
    const misses: Array<[string, string, string]> = [
      ['acme', `${CALLBACK}/`, '/'],
      ['acme', CALLBACK.toUpperCase(), '/'],
      ['acme', 'https://app.example/auth/oauth/other/callback', '/'],
      ['unknown', CALLBACK, '/'],
      ['acme', `${CALLBACK}?x=1`, '/'],
      ['acme', CALLBACK, '//evil.example'],
      ['acme', CALLBACK, '/settings/'],
      ['acme', CALLBACK, 'https://evil.example/'],
      ['acme', CALLBACK, '/\\evil.example'],
      ['acme', CALLBACK, ''],
      ['toString', CALLBACK, '/'],
      ['__proto__', CALLBACK, '/'],
    ]
    for (const [provider, redirect, returnTo] of misses) {
      expect(policy.allows(provider, redirect, returnTo)).toBe(false)
      expect(() => policy.validate(provider, redirect, returnTo)).toThrowError(
        expect.objectContaining({
          code: 'oauth.transaction.redirect_not_allowed',
          errorClass: 'unauthenticated',
        }),
      )
      expect(() => policy.validate(provider, redirect, returnTo)).toThrow(OAuthTransactionInvalidError)
    }
  })

  it('refuses unsafe callback URIs at configuration time', () => {
    const bad = [
      'http://app.example/cb',
      'https://*.example/cb',
      'https://app.example/cb#frag',
      'https://user:pw@app.example/cb',
      'https://app.example\\cb',
      'https://app.example:99999/cb',
      'https://APP.example/cb',
      'https://app.example',
      '/relative/cb',
      'https://app.example/c b',
      'http://localhost:3000/cb',
    ]
    for (const uri of bad) expect(configError({ callbackUris: { acme: [uri] } })).toContain('callback URI')
    expect(configError({ callbackUris: {} })).toMatch(/at least one/)
    expect(configError({ callbackUris: { acme: [] } })).toMatch(/needs a callback/)
    expect(configError({ callbackUris: { ' ': [CALLBACK] } })).toMatch(/non-blank/)
  })

  it('allows http loopback callbacks only with allowInsecureLocalhost', () => {
    for (const uri of ['http://localhost:3000/cb', 'http://127.0.0.1:3000/cb', 'http://[::1]:3000/cb']) {
      expect(configError({ callbackUris: { acme: [uri] } })).toContain('https')
      const local = new OAuthRedirectPolicy({ callbackUris: { acme: [uri] }, allowInsecureLocalhost: true })
      expect(local.allows('acme', uri, '/')).toBe(true)
    }
    expect(
      configError({ callbackUris: { acme: ['http://app.example/cb'] }, allowInsecureLocalhost: true }),
    ).toContain('https')
  })

  it('refuses unsafe return targets at configuration time', () => {
    const bad = [
      '//evil.example',
      'https://evil.example/x',
      'relative',
      '/a b',
      '/x#y',
      '/\\evil',
      'https://app.example',
    ]
    for (const returnTo of bad) {
      expect(configError({ callbackUris: { acme: [CALLBACK] }, returnTo: [returnTo] })).toContain('returnTo')
    }
    expect(configError({ callbackUris: { acme: [CALLBACK] }, returnTo: [] })).toMatch(/at least one/)
  })
})
