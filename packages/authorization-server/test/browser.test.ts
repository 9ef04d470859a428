import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { escapeHtml } from '../src/index.js'
import { chromiumPath, launchChromium } from './support/chromium.js'
import { pkce, redeemCode } from './support/oauth-client.js'
import { type FullStack, NOTES, startFullStack } from './support/server-with-interactions.js'

/** The client's loopback redirect URI: a real listener, so the browser really arrives there. */
async function loopbackCallback() {
  const hits: URL[] = []
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (url.pathname === '/callback') hits.push(url)
    if (url.pathname === '/forge') {
      // A page of another origin that posts to the consent form (a cross-site request forgery).
      const target = url.searchParams.get('target') ?? ''
      res.setHeader('content-type', 'text/html')
      res.end(
        `<!doctype html><form method="post" action="${escapeHtml(target)}"><input name="csrf" value="${escapeHtml(url.searchParams.get('csrf') ?? '')}"><input type="hidden" name="decision" value="approve"><button type="submit">Win a prize</button></form>`,
      )
      return
    }
    res.setHeader('content-type', 'text/html')
    res.end('<!doctype html><title>Callback</title><p>You can close this window.</p>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    redirectUri: `${origin}/callback`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The application's layout, as `createInteractions({ layout })` receives it: its header and stylesheet. */
const APP_LAYOUT = {
  layout: (page: { title: string; body: string; account?: { name: string } }) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(page.title)}</title><style>body{margin:0;font-family:sans-serif}header{background:#123}main{padding:1rem}</style></head><body><header data-app-header>${page.account === undefined ? 'Sign in' : escapeHtml(page.account.name)}</header><main><h1>${escapeHtml(page.title)}</h1>${page.body}</main></body></html>`,
}

describe.skipIf(chromiumPath === undefined)('the authorization server pages in Chromium', () => {
  let stack: FullStack
  let callback: Awaited<ReturnType<typeof loopbackCallback>>
  let browser: Awaited<ReturnType<typeof launchChromium>>
  let clientId: string

  beforeAll(async () => {
    callback = await loopbackCallback()
    stack = await startFullStack('express', APP_LAYOUT)
    clientId = stack.documents.client('/desktop-notes.json', {
      client_name: 'Desktop Notes',
      redirect_uris: [callback.redirectUri],
    })
    browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await stack?.close()
    await callback?.close()
  })

  const authorizationUrl = (params: Record<string, string> = {}) => {
    const { verifier, challenge } = pkce()
    const state = pkce().verifier.slice(0, 12)
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: callback.redirectUri,
      response_type: 'code',
      scope: 'notes:read',
      resource: NOTES,
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...params,
    })
    return { url: `${stack.issuer}/auth?${query}`, verifier, state }
  }

  /** Opens the authorization in a fresh page and signs in on the application's sign-in page. */
  async function signInAndReachConsent(page: Page, url: string, accountId: string) {
    // Every test is a new visitor: nobody signed in yet.
    await browser.context.clearCookies()
    await page.goto(url)
    // The hand-off: the interaction sends the visitor to the application's sign-in page.
    expect(new URL(page.url()).pathname).toBe('/signin')
    await page.fill('input[name=account]', accountId)
    await page.click('button[type=submit]')
    await page.waitForSelector('[data-consent]')
  }

  it('signs in, shows the consent page in the application layout, and Allow reaches the loopback callback with a code that redeems', async () => {
    const accountId = await stack.newAccount('alice')
    const page = await browser.context.newPage()
    const request = authorizationUrl()
    await signInAndReachConsent(page, request.url, accountId)

    expect(await page.title()).toBe('Connect Desktop Notes?')
    expect(await page.textContent('[data-client-name]')).toBe('Desktop Notes')
    expect(await page.textContent('[data-unverified]')).toBe('unverified')
    expect(await page.textContent('[data-client-host]')).toBe(new URL(clientId).host)
    // The account as its owner knows it (the application's `name`), never the internal id.
    expect(await page.textContent('[data-account]')).toBe('Alice')
    expect(await page.textContent('[data-app-header]')).toBe('Alice')
    expect(await page.textContent('body')).not.toContain(accountId)
    expect(await page.textContent('[data-redirect-host]')).toBe(new URL(callback.origin).host)

    const before = callback.hits.length
    await Promise.all([page.waitForURL(`${callback.origin}/callback**`), page.click('button[value=approve]')])
    expect(callback.hits.length).toBe(before + 1)
    const arrived = callback.hits.at(-1) as URL
    expect(arrived.searchParams.get('state')).toBe(request.state)
    const code = arrived.searchParams.get('code') as string
    const token = await redeemCode(stack.issuer, clientId, callback.redirectUri, code, request.verifier, {
      resource: NOTES,
    })
    expect(token.status).toBe(200)
    const claims = await stack.verifyAccessToken(token.body.access_token as string, NOTES)
    expect(claims.sub).toBe(accountId)
    expect((await stack.server.connectedApps(accountId)).map((app) => app.clientId)).toEqual([clientId])
    await page.close()
  })

  it('Deny reaches the callback with access_denied, and no grant is saved', async () => {
    const accountId = await stack.newAccount('dan')
    const page = await browser.context.newPage()
    const request = authorizationUrl()
    await signInAndReachConsent(page, request.url, accountId)
    await Promise.all([page.waitForURL(`${callback.origin}/callback**`), page.click('button[value=deny]')])
    const arrived = new URL(page.url())
    expect(arrived.searchParams.get('error')).toBe('access_denied')
    expect(arrived.searchParams.get('state')).toBe(request.state)
    expect(arrived.searchParams.get('code')).toBeNull()
    expect(await stack.server.connectedApps(accountId)).toEqual([])
    await page.close()
  })

  it('goes through the reauthentication page for prompt=login, then consent and a code', async () => {
    const accountId = await stack.newAccount('rita')
    const page = await browser.context.newPage()
    const request = authorizationUrl({ prompt: 'login consent' })
    await signInAndReachConsent(page, authorizationUrl().url, accountId)
    await page.goto(request.url)
    expect(new URL(page.url()).pathname).toBe('/reauthenticate')
    await page.fill('input[name=account]', accountId)
    await page.click('button[type=submit]')
    await page.waitForSelector('[data-consent]')
    await Promise.all([page.waitForURL(`${callback.origin}/callback**`), page.click('button[value=approve]')])
    const arrived = new URL(page.url())
    expect(arrived.searchParams.get('state')).toBe(request.state)
    expect(arrived.searchParams.get('code')).toBeTruthy()
    await page.close()
  })

  it('a web client already allowed: the sign-in leads on to the client (the sign-in form did not block it)', async () => {
    const webClientId = stack.documents.client('/web-notes.json', {
      client_name: 'Web Notes',
      application_type: 'web',
      redirect_uris: [callback.redirectUri],
    })
    const accountId = await stack.newAccount('wendy')
    const page = await browser.context.newPage()
    const first = authorizationUrl({ client_id: webClientId })
    await signInAndReachConsent(page, first.url, accountId)
    await Promise.all([page.waitForURL(`${callback.origin}/callback**`), page.click('button[value=approve]')])
    // Signed out; the next authorization signs in again and, the scopes granted, goes straight back.
    await browser.context.clearCookies()
    const again = authorizationUrl({ client_id: webClientId })
    await page.goto(again.url)
    expect(new URL(page.url()).pathname).toBe('/signin')
    await page.fill('input[name=account]', accountId)
    await Promise.all([page.waitForURL(`${callback.origin}/callback**`), page.click('button[type=submit]')])
    const arrived = new URL(page.url())
    expect(arrived.searchParams.get('state')).toBe(again.state)
    expect(arrived.searchParams.get('code')).toBeTruthy()
    await page.close()
  })

  it('Allow reaches an IPv6 loopback callback ([::1]) too', async () => {
    const hits: URL[] = []
    const v6: Server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://[::1]')
      if (url.pathname === '/callback') hits.push(url)
      res.end('ok')
    })
    await new Promise<void>((resolve) => v6.listen(0, '::1', resolve))
    try {
      const redirectUri = `http://[::1]:${(v6.address() as AddressInfo).port}/callback`
      const v6Client = stack.documents.client('/v6-notes.json', { redirect_uris: [redirectUri] })
      const accountId = await stack.newAccount('ivy')
      const page = await browser.context.newPage()
      const request = authorizationUrl({ client_id: v6Client, redirect_uri: redirectUri })
      await signInAndReachConsent(page, request.url, accountId)
      await Promise.all([
        page.waitForURL((url) => url.href.startsWith(redirectUri)),
        page.click('button[value=approve]'),
      ])
      expect(hits.at(-1)?.searchParams.get('code')).toBeTruthy()
      await page.close()
    } finally {
      v6.closeAllConnections()
      await new Promise<void>((resolve) => v6.close(() => resolve()))
    }
  })

  it('fits a 390 px screen without scrolling sideways', async () => {
    const accountId = await stack.newAccount('a-person-with-a-rather-long-account-name-that-must-wrap')
    const page = await browser.context.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await signInAndReachConsent(page, authorizationUrl().url, accountId)
    const width = await page.evaluate<number>('document.documentElement.scrollWidth')
    expect(width).toBeLessThanOrEqual(390)
    await page.close()
  })

  it('refuses a forged post from another origin, even with a token taken from the page', async () => {
    const accountId = await stack.newAccount('eve-target')
    const page = await browser.context.newPage()
    await signInAndReachConsent(page, authorizationUrl().url, accountId)
    const action = new URL(page.url()).href
    const csrf = (await page.getAttribute('input[name=csrf]', 'value')) as string
    const forged = await browser.context.newPage()
    await forged.goto(`${callback.origin}/forge?${new URLSearchParams({ target: action, csrf })}`)
    const [response] = await Promise.all([
      forged.waitForResponse((answer) => answer.url() === action && answer.request().method() === 'POST'),
      forged.click('button[type=submit]'),
    ])
    expect(response.status()).toBe(403)
    await forged.waitForLoadState()
    expect(await forged.textContent('h1')).toBe('Request refused')
    expect(await stack.server.connectedApps(accountId)).toEqual([])
    await forged.close()
    await page.close()
  })

  it('shows a browser an HTML error page for a refused authorization request and an unknown interaction', async () => {
    const page = await browser.context.newPage()
    const refused = await page.goto(
      `${stack.issuer}/auth?${new URLSearchParams({ client_id: clientId, redirect_uri: 'http://127.0.0.1:1/elsewhere', response_type: 'code' })}`,
    )
    expect(refused?.status()).toBe(400)
    expect(refused?.headers()['content-type']).toContain('text/html')
    expect(await page.textContent('h1')).toBe('This authorization request was refused')
    expect(await page.textContent('[data-code]')).toBe('invalid_redirect_uri')
    const width = await page.evaluate<number>('document.documentElement.scrollWidth')
    expect(width).toBeLessThanOrEqual(1280)

    const unknown = await page.goto(`${stack.issuer}/interaction/not-an-interaction`)
    expect(unknown?.status()).toBe(400)
    expect(await page.textContent('h1')).toBe('Authorization expired')
    expect(await page.textContent('[data-code]')).toBe('authorization_server.interaction_expired')
    await page.close()
  })
})
