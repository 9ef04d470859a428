import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AccountLinkError } from '../../src/oauth/accounts/errors.js'
import type { LocalSession } from '../../src/oidc/lifecycle-types.js'
import { OidcFixture, PROVIDER, sessionOf } from './support/fixture.js'

async function credential(fixture: OidcFixture, session: LocalSession, purpose: string): Promise<string> {
  const issued = await fixture.stepUp.issue({
    accountId: session.accountId,
    purpose,
    securityEpoch: session.securityEpoch,
    sessionBinding: session.sessionHandle,
  })
  return issued.reveal()
}

async function link(fixture: OidcFixture, session: LocalSession, subject: string) {
  fixture.browser.clearCookies()
  fixture.idp.nextLogin = { accountId: subject }
  const stepUpToken = await credential(fixture, session, 'oauth-link')
  const begun = await fixture.lifecycle.begin({ operation: 'link', provider: PROVIDER, session, stepUpToken })
  return fixture.lifecycle.complete({
    provider: PROVIDER,
    callback: await fixture.authorize(begun.redirectUrl),
    browserBinding: begun.browserBinding,
    session,
  })
}

describe('linking, scope upgrade, unlink and revocation against a real OpenID Provider', () => {
  let fixture: OidcFixture

  beforeAll(async () => {
    fixture = await OidcFixture.create({
      scopes: ['openid', 'offline_access'],
      allowedScopes: ['openid', 'offline_access', 'email', 'profile'],
    })
  })
  afterAll(async () => {
    await fixture.close()
  })

  it('links a provider identity to a local account with an oauth-link step-up credential', async () => {
    await fixture.passwordAccount('local-1')
    const session = sessionOf('local-1')
    const outcome = await link(fixture, session, 'carol')
    expect(outcome).toMatchObject({ operation: 'link', status: 'linked', accountId: 'local-1' })
    expect((await fixture.accounts.getAccount('local-1'))?.loginMethods).toBe(2)
    // Signing in as carol now lands on the local account.
    expect((await fixture.signIn('carol')).accountId).toBe('local-1')
  })

  it('asks the provider for a fresh login (prompt=login): the identity linked is the one proved now', async () => {
    await fixture.passwordAccount('local-fresh')
    const session = sessionOf('local-fresh')
    fixture.browser.clearCookies()
    fixture.idp.nextLogin = { accountId: 'erin-linking' }
    const stepUpToken = await credential(fixture, session, 'oauth-link')
    const begun = await fixture.lifecycle.begin({
      operation: 'link',
      provider: PROVIDER,
      session,
      stepUpToken,
    })
    expect(new URL(begun.redirectUrl).searchParams.get('prompt')).toBe('login')
    const outcome = await fixture.lifecycle.complete({
      provider: PROVIDER,
      callback: await fixture.authorize(begun.redirectUrl),
      browserBinding: begun.browserBinding,
      session,
    })
    expect(outcome).toMatchObject({ operation: 'link', status: 'linked', accountId: 'local-fresh' })
    expect((await fixture.signIn('erin-linking')).accountId).toBe('local-fresh')
  })

  it('refuses to begin a link without a valid oauth-link credential, before any redirect', async () => {
    await fixture.passwordAccount('local-2')
    const session = sessionOf('local-2')
    const authBefore = fixture.idp.hitsOf('/auth')
    const wrongPurpose = await credential(fixture, session, 'oauth-unlink')
    await expect(
      fixture.lifecycle.begin({ operation: 'link', provider: PROVIDER, session, stepUpToken: wrongPurpose }),
    ).rejects.toMatchObject({ code: 'oidc.step_up.required', errorClass: 'unauthenticated' })
    await expect(
      fixture.lifecycle.begin({ operation: 'link', provider: PROVIDER, session, stepUpToken: 'garbage' }),
    ).rejects.toMatchObject({ code: 'oidc.step_up.required' })
    const token = await credential(fixture, session, 'oauth-link')
    await fixture.lifecycle.begin({ operation: 'link', provider: PROVIDER, session, stepUpToken: token })
    await expect(
      fixture.lifecycle.begin({ operation: 'link', provider: PROVIDER, session, stepUpToken: token }),
    ).rejects.toMatchObject({ code: 'oidc.step_up.required', reason: 'step-up-unknown' })
    expect(fixture.idp.hitsOf('/auth')).toBe(authBefore)
  })

  it('a refused return target does not spend the credential', async () => {
    await fixture.passwordAccount('local-4')
    const session = sessionOf('local-4')
    const stepUpToken = await credential(fixture, session, 'oauth-link')
    await expect(
      fixture.lifecycle.begin({
        operation: 'link',
        provider: PROVIDER,
        session,
        stepUpToken,
        returnTo: 'https://evil.example/',
      }),
    ).rejects.toMatchObject({ code: 'oauth.transaction.redirect_not_allowed' })
    const begun = await fixture.lifecycle.begin({
      operation: 'link',
      provider: PROVIDER,
      session,
      stepUpToken,
    })
    expect(begun.operation).toBe('link')
  })

  it('refuses to link an identity another account owns (409) and changes nothing', async () => {
    await fixture.passwordAccount('local-3')
    const error = await link(fixture, sessionOf('local-3'), 'carol').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(AccountLinkError)
    expect(error).toMatchObject({ errorClass: 'conflict', conflict: 'identity-linked-elsewhere' })
    expect(await fixture.accounts.resolveLink({ accountId: 'local-3', provider: PROVIDER })).toBeNull()
    expect((await fixture.accounts.getAccount('local-3'))?.loginMethods).toBe(1)
  })

  it('upgrades scopes only for allow-listed missing scopes and records what was granted', async () => {
    const session = sessionOf('local-1')
    await expect(
      fixture.lifecycle.begin({
        operation: 'scope-upgrade',
        provider: PROVIDER,
        session,
        stepUpToken: 'unused',
        scopes: ['admin'],
      }),
    ).rejects.toMatchObject({ code: 'oidc.request.invalid', reason: 'scopes-not-allowed' })
    const nothing = await credential(fixture, session, 'oauth-scope-upgrade')
    await expect(
      fixture.lifecycle.begin({
        operation: 'scope-upgrade',
        provider: PROVIDER,
        session,
        stepUpToken: nothing,
        scopes: ['openid'],
      }),
    ).rejects.toMatchObject({ reason: 'nothing-to-upgrade' })

    // The refused request did not spend the credential.
    fixture.browser.clearCookies()
    fixture.idp.nextLogin = { accountId: 'carol' }
    const begun = await fixture.lifecycle.begin({
      operation: 'scope-upgrade',
      provider: PROVIDER,
      session,
      stepUpToken: nothing,
      scopes: ['email'],
    })
    expect(new URL(begun.redirectUrl).searchParams.get('scope')?.split(' ').sort()).toEqual([
      'email',
      'offline_access',
      'openid',
    ])
    const outcome = await fixture.lifecycle.complete({
      provider: PROVIDER,
      callback: await fixture.authorize(begun.redirectUrl),
      browserBinding: begun.browserBinding,
      session,
    })
    expect(outcome).toMatchObject({ operation: 'scope-upgrade', accountId: 'local-1' })
    expect(outcome.operation === 'scope-upgrade' && outcome.scopes).toContain('email')
  })

  it('refuses a partial consent on scope upgrade', async () => {
    const session = sessionOf('local-1')
    fixture.browser.clearCookies()
    fixture.idp.nextLogin = { accountId: 'carol' }
    fixture.idp.rewriteNextTokenScope = (scope) => scope.replace('profile', '').trim()
    try {
      const begun = await fixture.lifecycle.begin({
        operation: 'scope-upgrade',
        provider: PROVIDER,
        session,
        stepUpToken: await credential(fixture, session, 'oauth-scope-upgrade'),
        scopes: ['profile'],
      })
      await expect(
        fixture.lifecycle.complete({
          provider: PROVIDER,
          callback: await fixture.authorize(begun.redirectUrl),
          browserBinding: begun.browserBinding,
          session,
        }),
      ).rejects.toMatchObject({ code: 'oidc.scopes.not_granted' })
    } finally {
      fixture.idp.rewriteNextTokenScope = undefined
    }
  })

  it('keeps the final login method: unlink answers final-method without spending the credential', async () => {
    const login = await fixture.signIn('frank')
    const session = sessionOf(login.accountId)
    const token = await credential(fixture, session, 'oauth-unlink')
    const outcome = await fixture.lifecycle.unlink({
      provider: PROVIDER,
      session,
      stepUpToken: token,
      providerAccountId: login.providerAccountId,
    })
    expect(outcome).toEqual({ status: 'final-method' })
    expect(
      await fixture.accounts.resolveLink({ accountId: login.accountId, provider: PROVIDER }),
    ).not.toBeNull()
    const spent = await fixture.stepUp.consume({
      token,
      accountId: session.accountId,
      purpose: 'oauth-unlink',
      securityEpoch: 0,
      sessionBinding: session.sessionHandle,
    })
    expect(spent.kind).toBe('consumed')
  })

  it('unlinks a provider identity from an account that keeps another login method', async () => {
    const session = sessionOf('local-1')
    const current = await fixture.accounts.resolveLink({ accountId: 'local-1', provider: PROVIDER })
    const outcome = await fixture.lifecycle.unlink({
      provider: PROVIDER,
      session,
      stepUpToken: await credential(fixture, session, 'oauth-unlink'),
      providerAccountId: current?.providerAccountId as string,
    })
    expect(outcome).toMatchObject({ status: 'unlinked' })
    expect(await fixture.accounts.resolveLink({ accountId: 'local-1', provider: PROVIDER })).toBeNull()
    expect((await fixture.accounts.getAccount('local-1'))?.loginMethods).toBe(1)
  })

  it('revokes retained provider tokens at the provider', async () => {
    const login = await fixture.signIn('gina')
    const session = sessionOf(login.accountId)
    const outcome = await fixture.lifecycle.revokeProviderTokens({
      provider: PROVIDER,
      session,
      stepUpToken: await credential(fixture, session, 'oauth-provider-token-management'),
    })
    expect(outcome).toEqual({ status: 'revoked' })
    expect(await fixture.accounts.getTokens(login.providerAccountId)).toBeNull()
  })

  it('stages a retry when revocation fails upstream and drains it once the provider is back', async () => {
    const login = await fixture.signIn('hank')
    const session = sessionOf(login.accountId)
    const token = await credential(fixture, session, 'oauth-provider-token-management')
    await fixture.idp.stop()
    try {
      const outcome = await fixture.lifecycle.revokeProviderTokens({
        provider: PROVIDER,
        session,
        stepUpToken: token,
      })
      expect(outcome).toMatchObject({
        status: 'revocation-pending',
        failedTokenTypes: ['refresh_token', 'access_token'],
      })
      expect(await fixture.accounts.getTokens(login.providerAccountId)).toBeNull()
      const whileDown = await fixture.lifecycle.drainRevocationRetries(PROVIDER, { leaseSeconds: 1 })
      expect(whileDown).toMatchObject({ claimed: 1, completed: 0, failed: 1 })
    } finally {
      await fixture.idp.resume()
    }
    // The failed claim holds its lease for a second; then the retry is drained, once.
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect(await fixture.lifecycle.drainRevocationRetries(PROVIDER)).toMatchObject({
      claimed: 1,
      completed: 1,
    })
    expect(await fixture.lifecycle.drainRevocationRetries(PROVIDER)).toMatchObject({ claimed: 0 })
  })
})
