import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OAuthAccountError } from '../../src/oauth/accounts/errors.js'
import { OidcFixture, PROVIDER } from './support/fixture.js'

describe('OIDC login against a real OpenID Provider', () => {
  let fixture: OidcFixture

  beforeAll(async () => {
    fixture = await OidcFixture.create()
  })
  afterAll(async () => {
    await fixture.close()
  })

  it('provisions an unknown identity and signs the same identity in again without provisioning', async () => {
    const first = await fixture.signIn('alice')
    expect(first.provisioned).toBe(true)
    expect(first.identity).toMatchObject({ provider: PROVIDER, issuer: fixture.idp.issuer, subject: 'alice' })
    expect(first.returnTo).toBe('/')
    const again = await fixture.signIn('alice')
    expect(again.provisioned).toBe(false)
    expect(again.accountId).toBe(first.accountId)
    expect(again.providerAccountId).toBe(first.providerAccountId)
  })

  it('sends PKCE S256, state and nonce, and returns the binding cookie value to set', async () => {
    const begun = await fixture.lifecycle.begin({
      operation: 'login',
      provider: PROVIDER,
      returnTo: '/settings',
    })
    const query = new URL(begun.redirectUrl).searchParams
    expect(query.get('code_challenge_method')).toBe('S256')
    expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(query.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(query.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(begun.setBindingCookie).toBe(true)
    expect(JSON.stringify(begun)).not.toContain(begun.browserBinding)
    expect(inspect(begun)).not.toContain(begun.browserBinding)
    const reused = await fixture.lifecycle.begin({
      operation: 'login',
      provider: PROVIDER,
      browserBinding: begun.browserBinding,
    })
    expect(reused.setBindingCookie).toBe(false)
    expect(reused.browserBinding).toBe(begun.browserBinding)
  })

  it('never links by email: another subject with the same verified email gets its own account', async () => {
    const alice = await fixture.signIn('alice')
    fixture.idp.nextLogin = { accountId: 'impostor' }
    fixture.idp.tamperNextIdToken = {
      resign: true,
      claims: (claims) => ({ ...claims, email: 'alice@example.test', email_verified: true }),
    }
    fixture.browser.clearCookies()
    const begun = await fixture.lifecycle.begin({ operation: 'login', provider: PROVIDER })
    const outcome = await fixture.lifecycle.complete({
      provider: PROVIDER,
      callback: await fixture.authorize(begun.redirectUrl),
      browserBinding: begun.browserBinding,
    })
    expect(outcome.operation === 'login' && outcome.provisioned).toBe(true)
    expect(outcome.accountId).not.toBe(alice.accountId)
    expect(outcome.operation === 'login' && outcome.identity.email).toBe('alice@example.test')
  })

  it('retains tokens encrypted and refreshes them through the compare-and-swap', async () => {
    const login = await fixture.signIn('dana')
    const before = await fixture.accounts.getTokens(login.providerAccountId)
    expect(before?.tokens.refreshToken).toEqual(expect.any(String))
    const refreshed = await fixture.lifecycle.refreshProviderTokens({
      provider: PROVIDER,
      accountId: login.accountId,
    })
    expect(refreshed.status).toBe('refreshed')
    if (refreshed.status !== 'refreshed' || before === null) throw new Error('unreachable')
    expect(refreshed.tokens.reference.version).toBeGreaterThan(before.reference.version)
    expect(refreshed.tokens.tokens.accessToken).not.toBe(before.tokens.accessToken)
  })

  it('builds an RP-initiated logout URL with the retained ID token as hint', async () => {
    const login = await fixture.signIn('erin')
    const { endSessionUrl } = await fixture.lifecycle.logout({
      provider: PROVIDER,
      accountId: login.accountId,
    })
    const url = new URL(endSessionUrl as string)
    expect(url.origin + url.pathname).toBe(`${fixture.idp.issuer}/session/end`)
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe('https://app.example/')
    expect(url.searchParams.get('id_token_hint')?.split('.')).toHaveLength(3)
  })

  it('refuses an unknown provider name', async () => {
    await expect(fixture.lifecycle.begin({ operation: 'login', provider: 'nope' })).rejects.toMatchObject({
      code: 'oidc.provider.unknown',
    })
  })
})

describe('OIDC login with provisioning off', () => {
  let fixture: OidcFixture

  beforeAll(async () => {
    fixture = await OidcFixture.create({ provisionUnknown: false })
  })
  afterAll(async () => {
    await fixture.close()
  })

  it('refuses an unknown identity and creates nothing', async () => {
    const error = await fixture.signIn('stranger').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OAuthAccountError)
    expect(error).toMatchObject({ code: 'oauth.account.unknown_identity', errorClass: 'forbidden' })
    expect(await fixture.accounts.resolveLink({ accountId: 'stranger', provider: PROVIDER })).toBeNull()
  })
})
