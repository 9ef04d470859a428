import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STEP_UP_COOKIE, startApp, type TestApp } from './support/app.js'
import { Browser } from './support/browser.js'
import { callbackOf, consentPage, listed, post } from './support/flow.js'

const HOUR_AGO = () => new Date(Date.now() - 3600_000)

describe('prompt=login and max_age go through the step-up reauthentication', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp('express')
  })
  afterAll(() => app.close())

  /** A browser signed in an hour ago whose user already granted notes:read. */
  async function consented(accountId: string) {
    const browser = new Browser(app.origin)
    const session = app.signIn(browser, accountId, HOUR_AGO())
    const page = await consentPage(browser, app.authorize().url)
    const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    const stored = await app.provider.AuthorizationCode.find(callbackOf(location).get('code') as string)
    expect(stored?.authTime).toBe(Math.floor(session.authenticatedAt.getTime() / 1000))
    return { browser, session }
  }

  async function reauthenticationRedirect(browser: Browser, params: Record<string, string>) {
    const { location } = await browser.follow(app.authorize(params).url)
    const url = new URL(location as string)
    expect(url.pathname).toBe('/reauthenticate')
    expect(url.searchParams.get('purpose')).toBe('oauth-authorize')
    return url.searchParams.get('return_to') as string
  }

  async function codeAfter(browser: Browser, returnTo: string) {
    const { location } = await browser.follow(returnTo)
    const code = callbackOf(location).get('code') as string
    return app.provider.AuthorizationCode.find(code)
  }

  it('prompt=login: reauthentication, then a code whose auth_time is the reauthentication; the credential is never accepted twice', async () => {
    const { browser, session } = await consented('alice')
    const returnTo = await reauthenticationRedirect(browser, { prompt: 'login' })
    expect(returnTo).toMatch(/^\/oauth\/interaction\//)
    const at = new Date()
    const token = await app.reauthenticate(browser, session, { authenticatedAt: at })
    const stored = await codeAfter(browser, returnTo)
    expect(stored?.accountId).toBe('alice')
    expect(stored?.authTime).toBe(Math.floor(at.getTime() / 1000))
    expect(stored?.authTime).toBeGreaterThan(Math.floor(session.authenticatedAt.getTime() / 1000))

    // The same credential again (still in the cookie): burned, so reauthentication is asked again.
    expect(browser.cookie(STEP_UP_COOKIE)).toBe(token)
    await reauthenticationRedirect(browser, { prompt: 'login' })
    const again = await app.stepUp.consume({
      token,
      accountId: 'alice',
      purpose: 'oauth-authorize',
      securityEpoch: session.securityEpoch,
      sessionBinding: session.sessionHandle,
    })
    expect(again).toEqual({ kind: 'rejected', reason: 'unknown' })
  })

  it('prompt=login refuses a credential proven before the authorization began', async () => {
    const { browser, session } = await consented('bob')
    await app.reauthenticate(browser, session, { authenticatedAt: new Date(Date.now() - 60_000) })
    await reauthenticationRedirect(browser, { prompt: 'login' })
  })

  it('refuses a credential of another purpose and one of another account', async () => {
    const { browser, session } = await consented('carol')
    const returnTo = await reauthenticationRedirect(browser, { prompt: 'login' })
    await app.reauthenticate(browser, session, { purpose: 'delete-account' })
    const other = await browser.follow(returnTo)
    expect(new URL(other.location as string).pathname).toBe('/reauthenticate')

    const mallory = new Browser(app.origin)
    const malloryProof = await app.reauthenticate(mallory, app.signIn(mallory, 'mallory'))
    browser.setCookie(STEP_UP_COOKIE, malloryProof)
    const foreign = await browser.follow(returnTo)
    expect(new URL(foreign.location as string).pathname).toBe('/reauthenticate')
  })

  it('max_age shorter than the session asks for reauthentication; a longer one does not', async () => {
    // oidc-provider accepts max_age only with the openid scope (an OpenID Connect parameter).
    const scope = 'openid notes:read'
    const { browser, session } = await consented('dave')
    const returnTo = await reauthenticationRedirect(browser, { scope, max_age: '600' })
    const at = new Date()
    await app.reauthenticate(browser, session, { authenticatedAt: at })
    const page = await consentPage(browser, returnTo)
    expect(listed(page.html, 'data-scopes')).toEqual(['openid'])
    const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    const stored = await app.provider.AuthorizationCode.find(callbackOf(location).get('code') as string)
    expect(stored?.authTime).toBe(Math.floor(at.getTime() / 1000))

    // A fresh session is within a longer max_age: no reauthentication, auth_time is the session's.
    const fresh = new Browser(app.origin)
    const recent = app.signIn(fresh, 'dave', new Date(Date.now() - 60_000))
    const relaxed = await fresh.follow(app.authorize({ scope, max_age: '7200' }).url)
    expect(relaxed.location).toBeUndefined()
    const again = await consentPage(fresh, relaxed.url)
    const done = await post(fresh, again.url, { csrf: again.csrf, decision: 'approve' })
    const code = await app.provider.AuthorizationCode.find(callbackOf(done.location).get('code') as string)
    expect(code?.authTime).toBe(Math.floor(recent.authenticatedAt.getTime() / 1000))
  })

  it('restarts the login when another user signs in mid-interaction', async () => {
    const browser = new Browser(app.origin)
    app.signIn(browser, 'erin')
    const page = await consentPage(browser, app.authorize().url)
    expect(page.html).toContain('data-account>Erin<')

    app.signIn(browser, 'frank')
    // Erin's form posted under Frank's session finishes nothing: back to the interaction, a new login.
    const restarted = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    expect(restarted.location).toBeUndefined()
    // oidc-provider ends its own session of the previous account before it signs the new one in.
    const logout = await restarted.response.text()
    expect(logout).toContain('/oauth/session/end/confirm')
    const action = /action="([^"]+)"/.exec(logout)?.[1] as string
    const fields = Object.fromEntries(
      [...logout.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    )
    const next = await post(browser, action, fields as Record<string, string>)
    expect(next.location).toBeUndefined()
    const { response, url } = next
    expect(response.status).toBe(200)
    const html = await response.text()
    expect(html).toContain('data-account>Frank<')
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string
    const { location } = await post(browser, url, { csrf, decision: 'approve' })
    const stored = await app.provider.AuthorizationCode.find(callbackOf(location).get('code') as string)
    expect(stored?.accountId).toBe('frank')
  })
})
