// Reauthentication over real HTTP: max_age=0 at the real IdP issues a purpose-bound step-up credential
// (a `__Host-` cookie for browsers, the body for JSON clients) that `requiresStepUp` consumes exactly once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { OAuthApp, PROVIDER } from './support/harness.js'
import { type HttpClient, parseSetCookie } from './support/http-client.js'

const AT = `/auth/oauth/${PROVIDER}`
const STEP_UP_COOKIE = '__Host-portcullis-step-up-'

describe('OAuth reauthentication and requiresStepUp', () => {
  let app: OAuthApp

  beforeAll(async () => {
    app = await OAuthApp.start()
  })
  afterAll(async () => {
    await app.close()
  })
  beforeEach(() => {
    app.fixture.browser.clearCookies()
    app.fixture.idp.nextLogin = { accountId: 'alice' }
  })

  /** Signs `subject` in, then reauthenticates for `purpose` in the browser flow. */
  async function reauthenticated(subject: string, purpose: string): Promise<HttpClient> {
    const browser = app.client()
    await app.signIn(browser, subject)
    const begun = await browser.post(`${AT}/reauthenticate/${purpose}`, { form: { return_to: '/settings' } })
    expect(begun.status).toBe(303)
    const done = await browser.request(await app.throughIdp(begun.headers.get('location')))
    expect(done.status).toBe(303)
    expect(done.headers.get('location')).toBe('/settings')
    return browser
  }

  it('max_age=0 forces login; the browser gets a __Host- Strict cookie consumed exactly once by 20 racers', async () => {
    const browser = app.client()
    const { accountId } = await app.signIn(browser, 'alice')
    const begun = await browser.post(`${AT}/reauthenticate/delete-account`)
    const authorization = new URL(begun.headers.get('location') as string)
    expect(authorization.searchParams.get('max_age')).toBe('0')
    expect(authorization.searchParams.get('prompt')).toBe('login')
    const done = await browser.request(await app.throughIdp(begun.headers.get('location')))
    expect(done.status).toBe(303)
    const cookie = done.setCookies.map(parseSetCookie).find((line) => line.name.startsWith(STEP_UP_COOKIE))
    expect(cookie?.attributes).toMatchObject({ path: '/', httponly: true, secure: true, samesite: 'Strict' })
    expect(Number(cookie?.attributes['max-age'])).toBeGreaterThan(200)
    expect(Number(cookie?.attributes['max-age'])).toBeLessThanOrEqual(300)
    expect(done.text).toBe('')
    expect(app.eventsOf('oauth.reauthenticated').at(-1)).toMatchObject({
      accountId,
      purpose: 'delete-account',
    })
    expect(app.eventsOf('step_up.issued').at(-1)).toMatchObject({ accountId, purpose: 'delete-account' })
    expect(JSON.stringify(app.events)).not.toContain(cookie?.value)

    const consumedBefore = app.eventsOf('step_up.consumed').length
    const attempts = await Promise.all(
      Array.from({ length: 20 }, () => browser.post('/api/account/delete', { wantsJson: true })),
    )
    expect(attempts.filter((response) => response.status === 200)).toHaveLength(1)
    const losers = attempts.filter((response) => response.status !== 200)
    expect(losers).toHaveLength(19)
    for (const loser of losers) {
      expect(loser.status).toBe(401)
      expect(loser.body.code).toBe('step-up.required')
      // A cookie session gets no RFC 9470 bearer challenge.
      expect(loser.headers.get('www-authenticate')).toBeNull()
    }
    // Every attempt told the browser to forget the cookie.
    for (const attempt of attempts) {
      expect(
        attempt.setCookies.some((line) => line.startsWith(`${cookie?.name}=;`) && /Max-Age=0/.test(line)),
      ).toBe(true)
    }
    expect(app.eventsOf('step_up.consumed').length - consumedBefore).toBe(1)
    // The credential is gone for good.
    browser.cookies.set(cookie?.name as string, cookie?.value as string)
    expect((await browser.post('/api/account/delete', { wantsJson: true })).status).toBe(401)
  })

  it('a JSON client gets the credential in the body and presents it in the header, once', async () => {
    const browser = app.client()
    await app.signIn(browser, 'alice')
    const begun = await browser.post(`${AT}/reauthenticate/delete-account`, { wantsJson: true })
    expect(begun.status).toBe(200)
    const done = await browser.request(await app.throughIdp(begun.body.redirectUrl as string), {
      wantsJson: true,
    })
    expect(done.status).toBe(200)
    expect(done.body).toMatchObject({
      operation: 'reauthenticate',
      provider: PROVIDER,
      purpose: 'delete-account',
    })
    const token = done.body.stepUpToken as string
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(browser.cookieStartingWith(STEP_UP_COOKIE)).toBeUndefined()
    const headers = { 'portcullis-step-up': token }
    expect((await browser.post('/api/account/delete', { headers, wantsJson: true })).status).toBe(200)
    expect((await browser.post('/api/account/delete', { headers, wantsJson: true })).status).toBe(401)
  })

  it('the credential is bound to the session: another session of the same account cannot use it', async () => {
    const browser = await reauthenticated('alice', 'delete-account')
    const [name, value] = browser.cookieStartingWith(STEP_UP_COOKIE) as [string, string]
    const { accountId } = await app.signIn(app.client(), 'alice')
    const otherSession = app.signedInClient(accountId).client
    otherSession.cookies.set(name, value)
    expect((await otherSession.post('/api/account/delete', { wantsJson: true })).status).toBe(401)
    // Presenting it burned it (binding mismatch burns): the rightful browser cannot use it either.
    expect((await browser.post('/api/account/delete', { wantsJson: true })).status).toBe(401)
  })

  it('a cookie of one purpose is never presented to a route of another (and so never burned by it)', async () => {
    const browser = await reauthenticated('alice', 'change-email')
    const [name] = browser.cookieStartingWith(STEP_UP_COOKIE) as [string, string]
    const wrong = await browser.post('/api/account/delete', { wantsJson: true })
    expect(wrong.status).toBe(401)
    expect(wrong.setCookies).toEqual([])
    expect(browser.cookies.has(name)).toBe(true)
    expect((await browser.post('/api/account/email', { wantsJson: true })).status).toBe(200)
  })

  it('an IdP that ignores max_age (stale auth_time) issues nothing', async () => {
    const browser = app.client()
    await app.signIn(browser, 'alice')
    app.fixture.idp.ignoreMaxAge = true
    try {
      const begun = await browser.post(`${AT}/reauthenticate/delete-account`)
      // The IdP reuses its session from the sign-in above: no fresh authentication happened.
      app.fixture.idp.tamperNextIdToken = {
        resign: true,
        claims: (claims) => ({ ...claims, auth_time: Math.floor(Date.now() / 1000) - 3600 }),
      }
      const refused = await browser.request(await app.throughIdp(begun.headers.get('location')))
      expect(refused.status).toBe(403)
      expect(refused.body.code).toBe('oidc.confirmation.refused')
      expect(browser.cookieStartingWith(STEP_UP_COOKIE)).toBeUndefined()
    } finally {
      app.fixture.idp.ignoreMaxAge = false
      app.fixture.idp.tamperNextIdToken = undefined
    }
  })

  it('an unconfigured purpose and a provider that cannot reauthenticate (GitHub) get the same 404', async () => {
    const browser = app.client()
    await app.signIn(browser, 'alice')
    const unconfigured = await browser.post(`${AT}/reauthenticate/launch-missiles`, { wantsJson: true })
    const github = await browser.post('/auth/oauth/github/reauthenticate/delete-account', { wantsJson: true })
    const unknown = await browser.post('/auth/oauth/nope/reauthenticate/delete-account', { wantsJson: true })
    for (const response of [unconfigured, github, unknown]) {
      expect(response.status).toBe(404)
      expect(response.headers.get('cache-control')).toBe('no-store')
      expect(response.headers.get('location')).toBeNull()
      expect(response.setCookies).toEqual([])
    }
    expect(github.text).toBe(unconfigured.text)
    expect(unknown.text).toBe(unconfigured.text)
    expect(unconfigured.body).toEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      code: 'oauth.not_found',
      detail: 'Not found',
    })
  })

  it('a guarded route without any credential is 401 step-up.required and consumes nothing', async () => {
    const browser = app.client()
    await app.signIn(browser, 'alice')
    const refused = await browser.post('/api/account/delete', { wantsJson: true })
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe('step-up.required')
  })
})
