// The signed-in routes over real HTTP: linking (step-up, conflicts), revalidation, scope upgrade,
// unlinking, token revocation and logout, each refused without a verified local session.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { OAuthApp, PROVIDER } from './support/harness.js'

const AT = `/auth/oauth/${PROVIDER}`

describe('OAuth account routes', () => {
  let app: OAuthApp

  beforeAll(async () => {
    app = await OAuthApp.start()
  })
  afterAll(async () => {
    await app.close()
  })
  beforeEach(() => {
    app.fixture.browser.clearCookies()
  })

  /** A password account with a session, not linked to the IdP. */
  async function localAccount(accountId: string) {
    await app.fixture.passwordAccount(accountId)
    return app.signedInClient(accountId)
  }

  it('every signed-in route is 401 without a verified session (a forged session cookie included)', async () => {
    const anonymous = app.client()
    const forged = app.client()
    forged.cookies.set('test-session', 'forged-session-id')
    for (const client of [anonymous, forged]) {
      for (const path of [
        'link',
        'scopes',
        'links/x/unlink',
        'revoke',
        'logout',
        'revalidate',
        'reauthenticate/delete-account',
      ]) {
        const response = await client.post(`${AT}/${path}`, { wantsJson: true })
        expect(response.status, path).toBe(401)
        expect(response.body.code).toBe('authentication.required')
        expect(response.headers.get('cache-control')).toBe('no-store')
      }
    }
  })

  it('links with a step-up credential (header), which is consumed; without one the link is refused', async () => {
    const { client, handle } = await localAccount('local-bob')
    const refused = await client.post(`${AT}/link`, { wantsJson: true })
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe('oidc.step_up.required')

    const token = await app.issueStepUp('local-bob', handle, 'oauth-link')
    const begun = await client.post(`${AT}/link`, {
      headers: { 'portcullis-step-up': token },
      form: { return_to: '/settings' },
    })
    expect(begun.status).toBe(303)
    app.fixture.idp.nextLogin = { accountId: 'bob-at-idp' }
    const done = await client.request(await app.throughIdp(begun.headers.get('location')), {
      wantsJson: true,
    })
    expect(done.status).toBe(200)
    expect(done.body).toMatchObject({ operation: 'link', status: 'linked', returnTo: '/settings' })
    expect(app.eventsOf('oauth.linked').at(-1)).toMatchObject({ accountId: 'local-bob', relinked: false })
    expect(app.eventsOf('step_up.consumed').at(-1)).toMatchObject({
      accountId: 'local-bob',
      purpose: 'oauth-link',
    })

    // The credential was spent by the first link.
    const replay = await client.post(`${AT}/link`, {
      headers: { 'portcullis-step-up': token },
      wantsJson: true,
    })
    expect(replay.status).toBe(401)
    // Signing in with the linked identity now reaches the local account.
    expect((await app.signIn(app.client(), 'bob-at-idp')).accountId).toBe('local-bob')
  })

  it('linking an identity another account owns is 409 and changes nothing', async () => {
    const owner = (await app.signIn(app.client(), 'dana')).accountId
    const { client, handle } = await localAccount('local-carol')
    const token = await app.issueStepUp('local-carol', handle, 'oauth-link')
    const begun = await client.post(`${AT}/link`, { headers: { 'portcullis-step-up': token } })
    app.fixture.browser.clearCookies()
    app.fixture.idp.nextLogin = { accountId: 'dana' }
    const conflict = await client.request(await app.throughIdp(begun.headers.get('location')))
    expect(conflict.status).toBe(409)
    expect(conflict.body.code).toBe('oauth.account.link_conflict')
    expect((await app.signIn(app.client(), 'dana')).accountId).toBe(owner)
    expect(
      await app.fixture.accounts.resolveLink({ accountId: 'local-carol', provider: PROVIDER }),
    ).toBeNull()
  })

  it('a callback of another session or account is refused', async () => {
    const { client, handle } = await localAccount('local-erin')
    const begun = await client.post(`${AT}/link`, {
      headers: { 'portcullis-step-up': await app.issueStepUp('local-erin', handle, 'oauth-link') },
    })
    app.fixture.idp.nextLogin = { accountId: 'erin-at-idp' }
    const callback = await app.throughIdp(begun.headers.get('location'))
    // Same browser binding, but another signed-in session.
    const other = app.signedInClient('local-erin').client
    other.cookies.set('__Host-portcullis-oauth', client.cookies.get('__Host-portcullis-oauth') as string)
    const refused = await other.request(callback)
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe('oauth.transaction.invalid')
  })

  it('revalidates the linked identity without issuing any credential', async () => {
    const browser = app.client()
    const { accountId } = await app.signIn(browser, 'frank')
    const begun = await browser.post(`${AT}/revalidate`, { wantsJson: true })
    expect(begun.status).toBe(200)
    expect(new URL(begun.body.redirectUrl as string).searchParams.has('max_age')).toBe(false)
    const done = await browser.request(await app.throughIdp(begun.body.redirectUrl as string), {
      wantsJson: true,
    })
    expect(done.status).toBe(200)
    expect(done.body).toEqual({ operation: 'revalidate', provider: PROVIDER, returnTo: '/' })
    expect(browser.cookieStartingWith('__Host-portcullis-step-up-')).toBeUndefined()
    expect(app.eventsOf('oauth.revalidated').at(-1)).toMatchObject({ accountId })
  })

  it('revalidation by another identity at the IdP is refused (403)', async () => {
    const browser = app.client()
    await app.signIn(browser, 'gina')
    const begun = await browser.post(`${AT}/revalidate`)
    app.fixture.browser.clearCookies()
    app.fixture.idp.nextLogin = { accountId: 'mallory' }
    const refused = await browser.request(await app.throughIdp(begun.headers.get('location')))
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('oidc.confirmation.refused')
  })

  it('a scope upgrade needs an allow-listed scope and its own step-up credential, then records the grant', async () => {
    const browser = app.client()
    const { accountId, handle } = await app.signIn(browser, 'hank')
    const disallowed = await browser.post(`${AT}/scopes`, {
      json: { scopes: ['admin:everything'] },
      wantsJson: true,
    })
    expect(disallowed.status).toBe(400)
    expect(disallowed.body.code).toBe('oidc.request.invalid')
    const malformed = await browser.post(`${AT}/scopes`, { json: { scopes: 42 }, wantsJson: true })
    expect(malformed.status).toBe(400)
    const noCredential = await browser.post(`${AT}/scopes`, { form: { scopes: 'email' }, wantsJson: true })
    expect(noCredential.status).toBe(401)
    expect(noCredential.body.code).toBe('oidc.step_up.required')

    const token = await app.issueStepUp(accountId, handle, 'oauth-scope-upgrade')
    const begun = await browser.post(`${AT}/scopes`, {
      form: { scopes: 'email' },
      headers: { 'portcullis-step-up': token },
      wantsJson: true,
    })
    expect(begun.status).toBe(200)
    expect(new URL(begun.body.redirectUrl as string).searchParams.get('scope')?.split(' ')).toContain('email')
    const done = await browser.request(await app.throughIdp(begun.body.redirectUrl as string), {
      wantsJson: true,
    })
    expect(done.status).toBe(200)
    expect(done.body.operation).toBe('scope-upgrade')
    expect(done.body.scopes).toContain('email')
    expect(app.eventsOf('oauth.scopes_upgraded').at(-1)).toMatchObject({ accountId, provider: PROVIDER })
  })

  it('unlinking the last way to sign in is 409; unlinking needs the step-up credential', async () => {
    const browser = app.client()
    const { accountId } = await app.signIn(browser, 'ivy')
    const link = await app.fixture.accounts.resolveLink({ accountId, provider: PROVIDER })
    const path = `${AT}/links/${link?.providerAccountId}/unlink`
    const final = await browser.post(path, { wantsJson: true })
    expect(final.status).toBe(409)
    expect(final.body.code).toBe('oauth.link.final_method')
    const unknown = await browser.post(`${AT}/links/not-a-link/unlink`, { wantsJson: true })
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe('oauth.link.not_found')
  })

  it('unlinks with a step-up credential once the account has another way to sign in', async () => {
    const { client, handle } = await localAccount('local-jane')
    const begun = await client.post(`${AT}/link`, {
      headers: { 'portcullis-step-up': await app.issueStepUp('local-jane', handle, 'oauth-link') },
    })
    app.fixture.idp.nextLogin = { accountId: 'jane-at-idp' }
    expect((await client.request(await app.throughIdp(begun.headers.get('location')))).status).toBe(303)
    const link = await app.fixture.accounts.resolveLink({ accountId: 'local-jane', provider: PROVIDER })
    const path = `${AT}/links/${link?.providerAccountId}/unlink`
    const without = await client.post(path, { wantsJson: true })
    expect(without.status).toBe(401)
    expect(without.body.code).toBe('oidc.step_up.required')
    const token = await app.issueStepUp('local-jane', handle, 'oauth-unlink')
    const done = await client.post(path, { headers: { 'portcullis-step-up': token }, wantsJson: true })
    expect(done.status).toBe(200)
    expect(done.body).toMatchObject({ status: 'unlinked', provider: PROVIDER })
    expect(app.eventsOf('oauth.unlinked').at(-1)).toMatchObject({
      accountId: 'local-jane',
      provider: PROVIDER,
    })
  })

  it('revokes retained provider tokens with a step-up credential', async () => {
    const { client, handle } = await localAccount('local-kim')
    const begun = await client.post(`${AT}/link`, {
      headers: { 'portcullis-step-up': await app.issueStepUp('local-kim', handle, 'oauth-link') },
    })
    app.fixture.idp.nextLogin = { accountId: 'kim-at-idp' }
    await client.request(await app.throughIdp(begun.headers.get('location')))
    const token = await app.issueStepUp('local-kim', handle, 'oauth-provider-token-management')
    const revoked = await client.post(`${AT}/revoke`, {
      headers: { 'portcullis-step-up': token },
      wantsJson: true,
    })
    expect(revoked.status).toBe(200)
    expect(revoked.body).toEqual({ status: 'revoked' })
    expect(app.eventsOf('oauth.tokens_revoked').at(-1)).toMatchObject({
      accountId: 'local-kim',
      pending: false,
    })
    const link = await app.fixture.accounts.resolveLink({ accountId: 'local-kim', provider: PROVIDER })
    expect(await app.fixture.accounts.getTokens(link?.providerAccountId as string)).toBeNull()
  })

  it('logout ends the local session, then answers the provider end-session URL', async () => {
    const browser = app.client()
    await app.signIn(browser, 'liam')
    const json = await browser.post(`${AT}/logout`, { wantsJson: true })
    expect(json.status).toBe(200)
    const url = new URL(json.body.endSessionUrl as string)
    expect(url.origin).toBe(app.fixture.idp.issuer)
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe('https://app.example/')
    expect(url.searchParams.has('id_token_hint')).toBe(true)
    expect((await browser.request('/api/me')).status).toBe(401)

    const other = app.client()
    await app.signIn(other, 'liam')
    const redirected = await other.post(`${AT}/logout`)
    expect(redirected.status).toBe(303)
    expect(redirected.headers.get('location')).toMatch(new RegExp(`^${app.fixture.idp.issuer}`))
  })
})
