import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { OIDCError } from '../../src/oidc/errors.js'
import type { LocalSession, OAuthCallbackOutcome } from '../../src/oidc/lifecycle-types.js'
import { OidcFixture, PROVIDER, sessionOf } from './support/fixture.js'

type Reauthenticated = Extract<OAuthCallbackOutcome, { operation: 'reauthenticate' }>

describe('revalidate and reauthenticate against a real OpenID Provider', () => {
  let fixture: OidcFixture
  let session: LocalSession

  beforeAll(async () => {
    fixture = await OidcFixture.create()
    const login = await fixture.signIn('alice')
    session = sessionOf(login.accountId)
  })
  afterAll(async () => {
    await fixture.close()
  })
  beforeEach(() => {
    fixture.browser.clearCookies()
    fixture.idp.ignoreMaxAge = false
    fixture.idp.tamperNextIdToken = undefined
    fixture.idp.nextLogin = { accountId: 'alice' }
  })

  async function reauthenticate(purpose: string, as = session): Promise<OAuthCallbackOutcome> {
    const begun = await fixture.lifecycle.begin({
      operation: 'reauthenticate',
      provider: PROVIDER,
      purpose,
      session: as,
    })
    const callback = await fixture.authorize(begun.redirectUrl)
    return fixture.lifecycle.complete({
      provider: PROVIDER,
      callback,
      browserBinding: begun.browserBinding,
      session: as,
    })
  }

  function redemption(token: string, purpose: string) {
    return {
      token,
      purpose,
      accountId: session.accountId,
      securityEpoch: session.securityEpoch,
      sessionBinding: session.sessionHandle,
    }
  }

  async function refusal(promise: Promise<unknown>): Promise<string> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(OIDCError)
    return `${(error as OIDCError).code}/${(error as OIDCError).reason}`
  }

  it('revalidation confirms the exact linked identity and never issues a credential', async () => {
    const link = await fixture.accounts.resolveLink({ accountId: session.accountId, provider: PROVIDER })
    const tokensBefore = await fixture.accounts.getTokens(link?.providerAccountId as string)
    const begun = await fixture.lifecycle.begin({ operation: 'revalidate', provider: PROVIDER, session })
    const callback = await fixture.authorize(begun.redirectUrl)
    const outcome = await fixture.lifecycle.complete({
      provider: PROVIDER,
      callback,
      browserBinding: begun.browserBinding,
      session,
    })
    expect(outcome.operation).toBe('revalidate')
    expect(outcome).not.toHaveProperty('credential')
    expect(JSON.stringify(outcome)).not.toMatch(/credential|token/i)
    // Revalidation sends no max_age (it asserts no freshness) and refreshes nothing it received.
    expect(new URL(begun.redirectUrl).searchParams.has('max_age')).toBe(false)
    const tokensAfter = await fixture.accounts.getTokens(link?.providerAccountId as string)
    expect(tokensAfter?.reference.version).toBe(tokensBefore?.reference.version)
    expect(tokensAfter?.tokens.accessToken).toBe(tokensBefore?.tokens.accessToken)
  })

  it('revalidation of another identity at the IdP is refused', async () => {
    fixture.browser.clearCookies()
    fixture.idp.nextLogin = { accountId: 'mallory' }
    const begun = await fixture.lifecycle.begin({ operation: 'revalidate', provider: PROVIDER, session })
    const callback = await fixture.authorize(begun.redirectUrl)
    expect(
      await refusal(
        fixture.lifecycle.complete({
          provider: PROVIDER,
          callback,
          browserBinding: begun.browserBinding,
          session,
        }),
      ),
    ).toBe('oidc.confirmation.refused/identity-mismatch')
    fixture.browser.clearCookies()
  })

  it('max_age=0 forces login, issues a purpose-bound credential once, and it is redeemed exactly once', async () => {
    const begun = await fixture.lifecycle.begin({
      operation: 'reauthenticate',
      provider: PROVIDER,
      purpose: 'delete-account',
      session,
    })
    const query = new URL(begun.redirectUrl).searchParams
    expect(query.get('max_age')).toBe('0')
    expect(query.get('prompt')).toBe('login')
    const callback = await fixture.authorize(begun.redirectUrl)
    const outcome = (await fixture.lifecycle.complete({
      provider: PROVIDER,
      callback,
      browserBinding: begun.browserBinding,
      session,
    })) as Reauthenticated
    expect(outcome.operation).toBe('reauthenticate')
    expect(outcome.credential.purpose).toBe('delete-account')
    expect(JSON.stringify(outcome)).not.toContain(outcome.credential.reveal())

    const token = outcome.credential.reveal()
    const redemptions = await Promise.all(
      Array.from({ length: 20 }, () => fixture.stepUp.consume(redemption(token, 'delete-account'))),
    )
    expect(redemptions.filter((result) => result.kind === 'consumed')).toHaveLength(1)
    expect(redemptions.filter((result) => result.kind === 'rejected')).toHaveLength(19)
    // The same callback cannot mint a second credential.
    expect(
      await fixture.lifecycle
        .complete({ provider: PROVIDER, callback, browserBinding: begun.browserBinding, session })
        .then(
          () => 'completed',
          (error: { code?: string }) => error.code,
        ),
    ).toBe('oauth.transaction.invalid')
  })

  it('a credential is bound to its purpose: another purpose rejects and burns it', async () => {
    const outcome = (await reauthenticate('delete-account')) as Reauthenticated
    const token = outcome.credential.reveal()
    expect((await fixture.stepUp.consume(redemption(token, 'change-email'))).kind).toBe('rejected')
    expect((await fixture.stepUp.consume(redemption(token, 'delete-account'))).kind).toBe('rejected')
  })

  it('refuses an auth_time older than the start of a max_age=0 reauthentication', async () => {
    fixture.idp.tamperNextIdToken = {
      resign: true,
      claims: (claims) => ({ ...claims, auth_time: Math.floor(Date.now() / 1000) - 3600 }),
    }
    expect(await refusal(reauthenticate('delete-account'))).toBe('oidc.confirmation.refused/auth-time-stale')
  })

  it('refuses an auth_time in the future', async () => {
    fixture.idp.tamperNextIdToken = {
      resign: true,
      claims: (claims) => ({ ...claims, auth_time: Math.floor(Date.now() / 1000) + 3600 }),
    }
    expect(await refusal(reauthenticate('delete-account'))).toBe('oidc.confirmation.refused/auth-time-future')
  })

  it('refuses an ID token without auth_time', async () => {
    fixture.idp.tamperNextIdToken = {
      resign: true,
      claims: ({ auth_time: _ignored, ...claims }) => claims,
    }
    expect(await refusal(reauthenticate('delete-account'))).toBe(
      'oidc.confirmation.refused/auth-time-missing',
    )
  })

  it('max_age>0 accepts an auth_time within the window and refuses one outside it', async () => {
    const now = Math.floor(Date.now() / 1000)
    fixture.idp.tamperNextIdToken = { resign: true, claims: (claims) => ({ ...claims, auth_time: now - 60 }) }
    expect(((await reauthenticate('change-email')) as Reauthenticated).credential.purpose).toBe(
      'change-email',
    )
    fixture.idp.tamperNextIdToken = {
      resign: true,
      claims: (claims) => ({ ...claims, auth_time: now - 600 }),
    }
    expect(await refusal(reauthenticate('change-email'))).toBe('oidc.confirmation.refused/auth-time-stale')
  })

  it('refuses when the IdP ignores max_age and reuses an old session', async () => {
    // The IdP session comes from a sign-in an hour ago.
    fixture.browser.clearCookies()
    fixture.idp.nextLogin = { accountId: 'alice', authTime: Math.floor(Date.now() / 1000) - 3600 }
    const login = await fixture.lifecycle.begin({ operation: 'login', provider: PROVIDER })
    await fixture.lifecycle.complete({
      provider: PROVIDER,
      callback: await fixture.authorize(login.redirectUrl),
      browserBinding: login.browserBinding,
    })
    fixture.idp.ignoreMaxAge = true
    expect(await refusal(reauthenticate('delete-account'))).toBe('oidc.confirmation.refused/auth-time-stale')
    fixture.browser.clearCookies()
  })

  it('sends acr_values and requires the ACR and every AMR value', async () => {
    const begun = await fixture.lifecycle.begin({
      operation: 'reauthenticate',
      provider: PROVIDER,
      purpose: 'wire-transfer',
      session,
    })
    expect(new URL(begun.redirectUrl).searchParams.get('acr_values')).toBe('urn:test:loa:2')
    await fixture.browser.authorize(begun.redirectUrl, 'https://app.example/').catch(() => undefined)

    fixture.idp.nextLogin = { accountId: 'alice', acr: 'urn:test:loa:1', amr: ['pwd', 'otp'] }
    expect(await refusal(reauthenticate('wire-transfer'))).toBe('oidc.confirmation.refused/acr-not-satisfied')
    fixture.idp.nextLogin = { accountId: 'alice', amr: ['pwd', 'otp'] }
    expect(await refusal(reauthenticate('wire-transfer'))).toBe('oidc.confirmation.refused/acr-not-satisfied')
    fixture.idp.nextLogin = { accountId: 'alice', acr: 'urn:test:loa:2', amr: ['pwd'] }
    expect(await refusal(reauthenticate('wire-transfer'))).toBe('oidc.confirmation.refused/amr-not-satisfied')
    fixture.idp.nextLogin = { accountId: 'alice', acr: 'urn:test:loa:2', amr: ['otp', 'pwd', 'hwk'] }
    const outcome = (await reauthenticate('wire-transfer')) as Reauthenticated
    expect(outcome.credential.purpose).toBe('wire-transfer')
  })

  it('refuses reauthentication for a purpose the policy does not list, before any redirect', async () => {
    const error = await fixture.lifecycle
      .begin({ operation: 'reauthenticate', provider: PROVIDER, purpose: 'oauth-link', session })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'oidc.reauthentication.not_configured', errorClass: 'forbidden' })
    expect(fixture.lifecycle.canReauthenticate(PROVIDER, 'oauth-link')).toBe(false)
    expect(fixture.lifecycle.canReauthenticate(PROVIDER, 'delete-account')).toBe(true)
  })

  it('refuses a completion after the security epoch changed, and with another session', async () => {
    const begun = await fixture.lifecycle.begin({
      operation: 'reauthenticate',
      provider: PROVIDER,
      purpose: 'delete-account',
      session,
    })
    const callback = await fixture.authorize(begun.redirectUrl)
    const bumped = { ...session, securityEpoch: session.securityEpoch + 1 }
    expect(
      await refusal(
        fixture.lifecycle.complete({
          provider: PROVIDER,
          callback,
          browserBinding: begun.browserBinding,
          session: bumped,
        }),
      ),
    ).toBe('oidc.confirmation.refused/epoch-changed')

    const second = await fixture.lifecycle.begin({
      operation: 'reauthenticate',
      provider: PROVIDER,
      purpose: 'delete-account',
      session,
    })
    const otherSession = { ...session, sessionHandle: 'another-session' }
    const error = await fixture.lifecycle
      .complete({
        provider: PROVIDER,
        callback: await fixture.authorize(second.redirectUrl),
        browserBinding: second.browserBinding,
        session: otherSession,
      })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'oauth.transaction.invalid' })
  })

  it('refuses to begin for an account without a link', async () => {
    const error = await fixture.lifecycle
      .begin({ operation: 'revalidate', provider: PROVIDER, session: sessionOf('nobody') })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'oidc.account.not_linked' })
  })
})
