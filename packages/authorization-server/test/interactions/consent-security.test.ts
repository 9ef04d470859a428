import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  HOSTILE_CLIENT_ID,
  HOSTILE_NAME,
  NATIVE_CLIENT_ID,
  NATIVE_REDIRECT_URI,
  startApp,
  type TestApp,
} from './support/app.js'
import { Browser } from './support/browser.js'
import { callbackOf, consentPage, listed, post } from './support/flow.js'

describe('the consent form refuses forged and cross-interaction posts', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp('express')
  })
  afterAll(() => app.close())

  async function signedInConsent(accountId: string) {
    const browser = new Browser(app.origin)
    app.signIn(browser, accountId)
    return { browser, page: await consentPage(browser, app.authorize().url) }
  }

  it('refuses a post without a CSRF token, and the interaction stays usable', async () => {
    const { browser, page } = await signedInConsent('carol')
    const refused = await post(browser, page.url, { decision: 'approve' })
    expect(refused.response.status).toBe(403)
    expect(refused.location).toBeUndefined()
    expect(await refused.response.text()).toContain('could not be verified')
    const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    expect(callbackOf(location).get('code')).toBeTruthy()

    // The same approval replayed after the authorization finished: the interaction is gone.
    const replayed = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    expect(replayed.response.status).toBe(400)
    expect(replayed.location).toBeUndefined()
  })

  it('refuses a forged token and a tampered MAC', async () => {
    const { browser, page } = await signedInConsent('dave')
    const [nonce = '', mac = ''] = page.csrf.split('.')
    const flipped = `${nonce}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`
    for (const csrf of ['forged', `${nonce}.`, flipped, `${'A'.repeat(43)}.${mac}`]) {
      const refused = await post(browser, page.url, { csrf, decision: 'approve' })
      expect(refused.response.status, csrf).toBe(403)
    }
  })

  it('refuses the token of another interaction, and a token without its cookie', async () => {
    const browser = new Browser(app.origin)
    app.signIn(browser, 'erin')
    const first = await consentPage(browser, app.authorize().url)
    const second = await consentPage(browser, app.authorize({ scope: 'notes:write' }).url)
    expect(first.url).not.toBe(second.url)
    const crossed = await post(browser, second.url, { csrf: first.csrf, decision: 'approve' })
    expect(crossed.response.status).toBe(403)

    // The token without its double-submit cookie (a form posted from another site cannot set it).
    const path = new URL(second.url).pathname
    const nonce = browser.cookie('portcullis_consent', path)
    expect(nonce).toBeDefined()
    browser.deleteCookie('portcullis_consent', path)
    const withoutCookie = await post(browser, second.url, { csrf: second.csrf, decision: 'approve' })
    expect(withoutCookie.response.status).toBe(403)
    browser.setCookie('portcullis_consent', nonce as string, path)

    const { location } = await post(browser, second.url, { csrf: second.csrf, decision: 'approve' })
    expect(callbackOf(location).get('code')).toBeTruthy()
  })

  it('refuses a cross-site post even with a valid token', async () => {
    const { browser, page } = await signedInConsent('frank')
    const refused = await browser.request(page.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      },
      body: new URLSearchParams({ csrf: page.csrf, decision: 'approve' }).toString(),
    })
    expect(refused.status).toBe(403)
  })

  it('refuses an oversized body and a body that is not a form', async () => {
    const { browser, page } = await signedInConsent('grace')
    const large = await browser.request(page.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=${encodeURIComponent(page.csrf)}&decision=approve&pad=${'x'.repeat(20_000)}`,
    })
    expect(large.status).toBe(413)
    const json = await browser.request(page.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ csrf: page.csrf, decision: 'approve' }),
    })
    expect(json.status).toBe(415)
  })

  it('escapes a hostile client_name on the consent page', async () => {
    const browser = new Browser(app.origin)
    app.signIn(browser, 'heidi')
    const page = await consentPage(browser, app.authorize({ client_id: HOSTILE_CLIENT_ID }).url)
    expect(page.html).not.toContain('<script>alert')
    expect(page.html).not.toContain('<img src=x')
    expect(page.html).not.toContain(HOSTILE_NAME)
    expect(page.html).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;&#39;&amp;',
    )
    expect(page.html).toContain('data-client-host>evil.example<')
  })

  it('answers an unknown interaction with a clear 400 page, or problem+json, never a stack', async () => {
    const browser = new Browser(app.origin)
    app.signIn(browser, 'ivan')
    const html = await browser.request('/oauth/interaction/unknown-uid')
    expect(html.status).toBe(400)
    expect(html.headers.get('content-type')).toContain('text/html')
    expect(html.headers.get('cache-control')).toBe('no-store')
    const text = await html.text()
    expect(text).toContain('unknown or has expired')
    expect(text).not.toMatch(/at .*\.(js|ts):\d+/)
    const json = await browser.request('/oauth/interaction/unknown-uid', {
      headers: { accept: 'application/json' },
    })
    expect(json.status).toBe(400)
    expect(json.headers.get('content-type')).toBe('application/problem+json')
    expect(await json.json()).toMatchObject({ status: 400, code: 'authorization_server.interaction_expired' })
  })

  it('refuses the interaction URL of another browser (its cookie names a different interaction)', async () => {
    const { page } = await signedInConsent('judy')
    const other = new Browser(app.origin)
    app.signIn(other, 'judy')
    const response = await other.request(page.url)
    expect(response.status).toBe(400)
  })

  it('confirms a native client every time, asking nothing new once the scopes are granted', async () => {
    const browser = new Browser(app.origin)
    app.signIn(browser, 'kim')
    const params = { client_id: NATIVE_CLIENT_ID, redirect_uri: NATIVE_REDIRECT_URI }
    const first = await consentPage(browser, app.authorize(params).url)
    expect(listed(first.html, 'data-scopes')).toEqual(['notes:read'])
    const approved = await post(browser, first.url, { csrf: first.csrf, decision: 'approve' })
    expect(new URL(approved.location as string).searchParams.get('code')).toBeTruthy()

    const again = await consentPage(browser, app.authorize(params).url)
    expect(again.html).not.toContain('data-scopes')
    expect(listed(again.html, 'data-granted-scopes')).toEqual(['notes:read'])
    const confirmed = await post(browser, again.url, { csrf: again.csrf, decision: 'approve' })
    const url = new URL(confirmed.location as string)
    expect(`${url.origin}${url.pathname}`).toBe(NATIVE_REDIRECT_URI)
    expect(url.searchParams.get('code')).toBeTruthy()
  })
})
