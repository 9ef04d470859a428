// Provisioning off (an unknown identity cannot sign in) and an expired transaction, over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OAuthApp, PROVIDER, SESSION_COOKIE } from './support/harness.js'

describe('OAuth sign-in without provisioning, and transaction expiry', () => {
  let app: OAuthApp
  let offsetMs = 0

  beforeAll(async () => {
    app = await OAuthApp.start({
      provisionUnknown: false,
      transactionClock: () => new Date(Date.now() + offsetMs),
    })
  })
  afterAll(async () => {
    await app.close()
  })

  it('an identity linked to no account is refused (403) and no account or session is created', async () => {
    const browser = app.client()
    app.fixture.browser.clearCookies()
    app.fixture.idp.nextLogin = { accountId: 'stranger' }
    const begun = await browser.request(`/auth/oauth/${PROVIDER}/login`)
    const refused = await browser.request(await app.throughIdp(begun.headers.get('location')))
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('oauth.account.unknown_identity')
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false)
    expect(app.eventsOf('oauth.signed_in')).toEqual([])
  })

  it('a callback after the transaction expired is 401, even with the right browser', async () => {
    const browser = app.client()
    app.fixture.browser.clearCookies()
    const begun = await browser.request(`/auth/oauth/${PROVIDER}/login`)
    const callback = await app.throughIdp(begun.headers.get('location'))
    const tokenRequests = app.fixture.idp.hitsOf('/token')
    offsetMs = 11 * 60 * 1000
    try {
      const expired = await browser.request(callback)
      expect(expired.status).toBe(401)
      expect(expired.body.code).toBe('oauth.transaction.invalid')
      expect(app.fixture.idp.hitsOf('/token')).toBe(tokenRequests)
    } finally {
      offsetMs = 0
    }
  })
})
