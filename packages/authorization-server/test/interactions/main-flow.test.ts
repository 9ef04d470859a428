import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLIENT_ID, CLIENT_NAME, REDIRECT_URI, RESOURCE, startApp, type TestApp } from './support/app.js'
import { Browser } from './support/browser.js'
import { callbackOf, consentPage, listed, post } from './support/flow.js'

describe.each(['express', 'fastify'] as const)('interaction main flow on %s', (mount) => {
  let app: TestApp
  let browser: Browser
  beforeAll(async () => {
    app = await startApp(mount)
    browser = new Browser(app.origin)
  })
  afterAll(() => app.close())

  it('sends a visitor without a session to the sign-in page, returning to the interaction', async () => {
    const { location } = await browser.follow(app.authorize().url)
    const url = new URL(location as string)
    expect(url.pathname).toBe('/signin')
    expect(url.searchParams.get('return_to')).toMatch(/^\/oauth\/interaction\/[A-Za-z0-9_-]+$/)
  })

  it('signs in through the session, asks consent naming the client, then issues a code that redeems', async () => {
    const first = app.authorize()
    const signIn = await browser.follow(first.url)
    app.signIn(browser, 'alice')
    const returnTo = new URL(signIn.location as string).searchParams.get('return_to') as string
    const page = await consentPage(browser, returnTo)
    expect(page.response.headers.get('cache-control')).toBe('no-store')
    expect(page.response.headers.get('x-frame-options')).toBe('DENY')
    expect(page.response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(page.response.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(page.html).toContain(`data-client-host>client.example<`)
    expect(page.html).toContain(`data-client-name>${CLIENT_NAME}<`)
    expect(page.html).toContain(`data-redirect-host>callback.example<`)
    expect(page.html).toContain('Read your notes')
    expect(listed(page.html, 'data-scopes')).toEqual(['notes:read'])
    expect(listed(page.html, 'data-resources')).toEqual([RESOURCE])

    const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    const callback = callbackOf(location)
    expect(callback.get('state')).toBe(first.state)
    const code = callback.get('code') as string
    const stored = await app.provider.AuthorizationCode.find(code)
    expect(stored?.accountId).toBe('alice')

    const token = await fetch(`${app.origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id: CLIENT_ID,
        redirect_uri: REDIRECT_URI,
        code_verifier: first.verifier,
      }),
    })
    expect(token.status).toBe(200)
    const claims = decodeJwt(((await token.json()) as { access_token: string }).access_token)
    expect(claims).toMatchObject({ sub: 'alice', aud: RESOURCE, scope: 'notes:read', client_id: CLIENT_ID })
  })

  it('does not ask again for scopes already granted', async () => {
    const again = app.authorize()
    const { location, response } = await browser.follow(again.url)
    expect(response.status).toBe(303)
    const callback = callbackOf(location)
    expect(callback.get('state')).toBe(again.state)
    expect(callback.get('code')).toBeTruthy()
  })

  it('asks again when the scopes grow, for the new scopes only', async () => {
    const grown = app.authorize({ scope: 'notes:read notes:write' })
    const page = await consentPage(browser, grown.url)
    expect(listed(page.html, 'data-scopes')).toEqual(['notes:write'])
    expect(listed(page.html, 'data-granted-scopes')).toEqual(['notes:read'])
    const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    const code = callbackOf(location).get('code') as string
    const stored = await app.provider.AuthorizationCode.find(code)
    expect(stored?.scope?.split(' ').sort()).toEqual(['notes:read', 'notes:write'])
    const grant = await app.provider.Grant.find(stored?.grantId as string)
    expect(grant?.getResourceScopeEncountered(RESOURCE).split(' ').filter(Boolean).sort()).toEqual([
      'notes:read',
      'notes:write',
    ])
  })

  it('answers access_denied when the user denies', async () => {
    const other = new Browser(app.origin)
    app.signIn(other, 'bob')
    const page = await consentPage(other, app.authorize().url)
    const { location } = await post(other, page.url, { csrf: page.csrf, decision: 'deny' })
    expect(callbackOf(location).get('error')).toBe('access_denied')
  })
})
