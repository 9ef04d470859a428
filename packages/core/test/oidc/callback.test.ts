// Adversarial callbacks against a real OpenID Provider: replay, binding, expiry, tampered and re-signed
// ID tokens, mix-up, parameter pollution, PAR.
import { inspect } from 'node:util'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { OAuthTransactionInvalidError } from '../../src/oauth/transactions/errors.js'
import { OIDCError } from '../../src/oidc/errors.js'
import { OidcFixture, PROVIDER } from './support/fixture.js'
import { TestIdp } from './support/test-idp.js'

let clockOffsetMs = 0

async function rejection(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (error instanceof OIDCError) return `${error.code}/${error.reason}`
  if (error instanceof OAuthTransactionInvalidError) return error.code
  throw new Error(`unexpected outcome: ${String(error)}`)
}

describe('callback attacks', () => {
  let fixture: OidcFixture
  let other: TestIdp

  beforeAll(async () => {
    fixture = await OidcFixture.create({ transactionClock: () => new Date(Date.now() + clockOffsetMs) })
    other = await TestIdp.start()
  })
  afterAll(async () => {
    await fixture.close()
    await other.close()
  })
  beforeEach(() => {
    clockOffsetMs = 0
    fixture.browser.clearCookies()
    fixture.idp.nextLogin = { accountId: 'alice' }
  })

  async function started() {
    const begun = await fixture.lifecycle.begin({ operation: 'login', provider: PROVIDER })
    const callback = await fixture.authorize(begun.redirectUrl)
    return { begun, callback }
  }

  function complete(callback: string | URL, browserBinding: string | undefined) {
    return fixture.lifecycle.complete({ provider: PROVIDER, callback, browserBinding })
  }

  it('a replayed callback is refused and the code is exchanged once', async () => {
    const { begun, callback } = await started()
    await complete(callback, begun.browserBinding)
    const tokenCalls = fixture.idp.hitsOf('/token')
    expect(await rejection(complete(callback, begun.browserBinding))).toBe('oauth.transaction.invalid')
    expect(fixture.idp.hitsOf('/token')).toBe(tokenCalls)
  })

  it('errors, the provider and the begin result never show codes, states, nonces or secrets', async () => {
    const { begun, callback } = await started()
    fixture.idp.tamperNextIdToken = {
      resign: true,
      claims: (claims) => ({ ...claims, nonce: 'x'.repeat(43) }),
    }
    const error = (await complete(callback, begun.browserBinding).catch(
      (caught: unknown) => caught,
    )) as OIDCError
    const secrets = [
      callback.searchParams.get('code') as string,
      callback.searchParams.get('state') as string,
      new URL(begun.redirectUrl).searchParams.get('nonce') as string,
      begun.browserBinding,
      'test-secret-that-is-long-enough',
    ]
    const rendered = [
      error.message,
      JSON.stringify(error),
      String(error),
      inspect(fixture.provider),
      JSON.stringify(fixture.provider),
    ]
    for (const text of rendered) for (const secret of secrets) expect(text).not.toContain(secret)
  })

  it('a missing or foreign binding cookie is refused without burning the transaction', async () => {
    const { begun, callback } = await started()
    const stranger = await fixture.lifecycle.begin({ operation: 'login', provider: PROVIDER })
    expect(await rejection(complete(callback, undefined))).toBe('oauth.transaction.invalid')
    expect(await rejection(complete(callback, stranger.browserBinding))).toBe('oauth.transaction.invalid')
    expect((await complete(callback, begun.browserBinding)).operation).toBe('login')
  })

  it('an expired transaction is refused', async () => {
    const { begun, callback } = await started()
    clockOffsetMs = 601_000
    expect(await rejection(complete(callback, begun.browserBinding))).toBe('oauth.transaction.invalid')
  })

  it('a callback for another operation is refused (and burned) when the adapter names one', async () => {
    const { begun, callback } = await started()
    const error = fixture.lifecycle.complete({
      provider: PROVIDER,
      callback,
      browserBinding: begun.browserBinding,
      expectedOperation: 'link',
    })
    expect(await rejection(error)).toBe('oauth.transaction.invalid')
    expect(await rejection(complete(callback, begun.browserBinding))).toBe('oauth.transaction.invalid')
  })

  it('a tampered ID token (claims changed, signature kept) is refused', async () => {
    const { begun, callback } = await started()
    fixture.idp.tamperNextIdToken = { resign: false, claims: (claims) => ({ ...claims, sub: 'admin' }) }
    expect(await rejection(complete(callback, begun.browserBinding))).toBe(
      'oidc.callback.rejected/id-token-signature',
    )
  })

  it('an ID token signed by another key, under this IdP kid or its own, is refused', async () => {
    const now = Math.floor(Date.now() / 1000)
    for (const [kid, reason] of [
      [fixture.idp.signingKid, 'id-token-signature'],
      [other.signingKid, 'id-token-key'],
    ] as const) {
      const { begun, callback } = await started()
      const nonce = new URL(begun.redirectUrl).searchParams.get('nonce') as string
      const claims = {
        iss: fixture.idp.issuer,
        aud: 'portcullis-test',
        sub: 'alice',
        nonce,
        iat: now,
        exp: now + 300,
      }
      fixture.idp.replaceNextIdToken = await other.sign(claims, kid)
      expect(await rejection(complete(callback, begun.browserBinding))).toBe(
        `oidc.callback.rejected/${reason}`,
      )
      fixture.browser.clearCookies()
    }
  })

  it('a validly signed ID token with another nonce is refused', async () => {
    const { begun, callback } = await started()
    fixture.idp.tamperNextIdToken = {
      resign: true,
      claims: (claims) => ({ ...claims, nonce: 'x'.repeat(43) }),
    }
    expect(await rejection(complete(callback, begun.browserBinding))).toBe(
      'oidc.callback.rejected/nonce-mismatch',
    )
  })

  it('a validly signed ID token for several audiences without azp is refused', async () => {
    const { begun, callback } = await started()
    fixture.idp.tamperNextIdToken = {
      resign: true,
      claims: (claims) => ({ ...claims, aud: ['portcullis-test', 'someone-else'] }),
    }
    expect(await rejection(complete(callback, begun.browserBinding))).toMatch(
      /^oidc\.callback\.rejected\/id-token-a/,
    )
  })

  it('a validly signed ID token minted before the transaction began is refused', async () => {
    const { begun, callback } = await started()
    fixture.idp.tamperNextIdToken = {
      resign: true,
      claims: (claims) => ({ ...claims, iat: (claims.iat as number) - 3600 }),
    }
    expect(await rejection(complete(callback, begun.browserBinding))).toBe(
      'oidc.callback.rejected/id-token-issued-before-transaction',
    )
  })

  it('mix-up: an authorization response naming another issuer is refused before the code is sent', async () => {
    const { begun, callback } = await started()
    const tokenCalls = fixture.idp.hitsOf('/token')
    const forged = new URL(callback)
    forged.searchParams.set('iss', other.issuer)
    expect(await rejection(complete(forged, begun.browserBinding))).toBe(
      'oidc.callback.rejected/iss-mismatch',
    )
    expect(fixture.idp.hitsOf('/token')).toBe(tokenCalls)
  })

  it('mix-up: a response without iss is refused when the provider advertises RFC 9207', async () => {
    expect(fixture.provider.metadata.authorizationResponseIssParameterSupported).toBe(true)
    const { begun, callback } = await started()
    const stripped = new URL(callback)
    stripped.searchParams.delete('iss')
    expect(await rejection(complete(stripped, begun.browserBinding))).toBe(
      'oidc.callback.rejected/iss-missing',
    )
  })

  it('parameter pollution (two codes) is refused', async () => {
    const { begun, callback } = await started()
    const polluted = new URL(callback)
    polluted.searchParams.append('code', 'another-code')
    expect(await rejection(complete(polluted, begun.browserBinding))).toBe(
      'oidc.callback.rejected/duplicate-parameter',
    )
  })

  it('an error response from the IdP is refused and burns the transaction', async () => {
    const begun = await fixture.lifecycle.begin({ operation: 'login', provider: PROVIDER })
    const state = new URL(begun.redirectUrl).searchParams.get('state') as string
    const query = `?error=access_denied&state=${state}&iss=${encodeURIComponent(fixture.idp.issuer)}`
    expect(await rejection(complete(query, begun.browserBinding))).toBe(
      'oidc.callback.rejected/authorization-error',
    )
    expect(await rejection(complete(query, begun.browserBinding))).toBe('oauth.transaction.invalid')
  })
})

describe('providers that do not advertise RFC 9207 iss', () => {
  let fixture: OidcFixture

  beforeAll(async () => {
    fixture = await OidcFixture.create({ beforeDiscovery: (idp) => (idp.advertiseIss = false) })
  })
  afterAll(async () => {
    await fixture.close()
  })

  it('accept a response without iss but still refuse a foreign iss', async () => {
    expect(fixture.provider.metadata.authorizationResponseIssParameterSupported).toBe(false)
    const begun = await fixture.lifecycle.begin({ operation: 'login', provider: PROVIDER })
    const callback = await fixture.authorize(begun.redirectUrl)
    const foreign = new URL(callback)
    foreign.searchParams.set('iss', 'https://evil.example')
    const second = await fixture.lifecycle.begin({ operation: 'login', provider: PROVIDER })
    const secondCallback = await fixture.authorize(second.redirectUrl)
    const stripped = new URL(secondCallback)
    stripped.searchParams.delete('iss')
    expect(
      await rejection(
        fixture.lifecycle.complete({
          provider: PROVIDER,
          callback: foreign,
          browserBinding: begun.browserBinding,
        }),
      ),
    ).toBe('oidc.callback.rejected/iss-mismatch')
    const outcome = await fixture.lifecycle.complete({
      provider: PROVIDER,
      callback: stripped,
      browserBinding: second.browserBinding,
    })
    expect(outcome.operation).toBe('login')
  })
})

describe('pushed authorization requests (RFC 9126)', () => {
  it('are used when the provider requires them', async () => {
    const fixture = await OidcFixture.create({ idp: { requirePar: true } })
    try {
      expect(fixture.provider.metadata.requirePushedAuthorizationRequests).toBe(true)
      expect(fixture.provider.pushedAuthorizationRequests).toBe(true)
      const outcome = await fixture.signIn('alice')
      expect(outcome.provisioned).toBe(true)
      const begun = await fixture.lifecycle.begin({ operation: 'login', provider: PROVIDER })
      const query = new URL(begun.redirectUrl).searchParams
      expect([...query.keys()].sort()).toEqual(['client_id', 'request_uri'])
      expect(fixture.idp.hitsOf('/request')).toBe(2)
    } finally {
      await fixture.close()
    }
  })

  it('are refused by such a provider when not pushed (the reason PAR is followed)', async () => {
    const fixture = await OidcFixture.create({ idp: { requirePar: true } })
    try {
      const begun = await fixture.lifecycle.begin({ operation: 'login', provider: PROVIDER })
      // The same request sent as query parameters instead of pushed: the IdP refuses it.
      const pushed = new URL(begun.redirectUrl)
      const plain = new URL(`${fixture.idp.issuer}/auth`)
      plain.search = new URLSearchParams({
        client_id: 'portcullis-test',
        response_type: 'code',
        scope: 'openid',
        redirect_uri: 'https://app.example/auth/oauth/idp/callback',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }).toString()
      const refused = await fixture.authorize(plain.href)
      expect(refused.searchParams.get('error')).toBe('invalid_request')
      expect(pushed.searchParams.has('request_uri')).toBe(true)
    } finally {
      await fixture.close()
    }
  })

  it('are used when the registration enables them', async () => {
    const fixture = await OidcFixture.create({ pushedAuthorizationRequests: true })
    try {
      expect(fixture.provider.metadata.requirePushedAuthorizationRequests).toBe(false)
      const begun = await fixture.lifecycle.begin({ operation: 'login', provider: PROVIDER })
      expect(new URL(begun.redirectUrl).searchParams.has('request_uri')).toBe(true)
      const outcome = await fixture.lifecycle.complete({
        provider: PROVIDER,
        callback: await fixture.authorize(begun.redirectUrl),
        browserBinding: begun.browserBinding,
      })
      expect(outcome.operation).toBe('login')
    } finally {
      await fixture.close()
    }
  })
})
