import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { totpCodeAt } from '@portcullis/totp'
import { decodeJwt } from 'jose'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DocumentServer,
  TEST_CA,
} from '../../../packages/authorization-server/test/support/document-server.js'
import { demoAccountId } from '../src/accounts/local-accounts.js'
import { type Browser, chromiumPath, launchChromium, screenshotFolder } from './support/chromium.js'
import { enrollDemoTotp } from './support/demo-totp.js'
import { settledMailsTo } from './support/mailbox.js'
import { AgentOAuth } from './support/oauth-agent.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The official MCP SDK client connects to the reference app with its browser part in headless Chromium,
 * as Claude, Cursor or VS Code hand the authorization URL to the system browser: the SDK's authorization
 * URL opened in Chromium, the app's sign-in (password, then a TOTP code), the consent page, Allow, the
 * redirect to the client's own loopback listener, the SDK's token exchange, list and read, then
 * Disconnect on the Connected apps page, by clicking. A second run clicks Deny. Screenshots of the consent
 * page (1280 and 390 px) go to docs/images/ when PORTCULLIS_SCREENSHOTS=update.
 */

/** The client's loopback redirect URI, a real listener as an MCP client runs one. */
async function loopbackListener() {
  const arrivals: URL[] = []
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (url.pathname === '/callback') arrivals.push(url)
    res.setHeader('content-type', 'text/html; charset=utf-8')
    res.end('<!doctype html><title>Signed in</title><p>You can close this window and return to the app.</p>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    redirectUri: `${origin}/callback`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

let app: TestApp
let browser: Browser
let images = ''
let totpSecret = ''
let listener: Awaited<ReturnType<typeof loopbackListener>>
const documents = new DocumentServer()

const textOf = (contents: readonly unknown[]) =>
  JSON.parse((contents[0] as { text: string }).text) as Record<string, unknown>

describe.skipIf(chromiumPath === undefined)('the MCP SDK client with its browser part in Chromium', () => {
  beforeAll(async () => {
    images = await screenshotFolder()
    await documents.start()
    listener = await loopbackListener()
    app = await startTestApp({
      authorizationServer: { clientIdMetadataDocuments: { allowInsecureLoopback: true, ca: TEST_CA } },
    })
    // alice signs in with her password and a TOTP code: her second step is enrolled here.
    totpSecret = await enrollDemoTotp(app, 'alice')
    browser = await launchChromium()
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
    await listener?.close()
    await documents.stop()
  })

  /** A 1.x SDK client whose first connect asks for the browser; returns the URL it "opens". */
  async function startConnecting(name: string, path: string) {
    const clientId = documents.client(path, { client_name: name, redirect_uris: [listener.redirectUri] })
    const oauth = new AgentOAuth(listener.redirectUri, name, clientId)
    const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
      authProvider: oauth as never,
    })
    await expect(new Client({ name, version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    )
    return { oauth, transport, clientId, authorizationUrl: oauth.saved.authorizationUrl as URL }
  }

  /** In Chromium: the authorization URL, the app's sign-in with the password and a TOTP code, consent. */
  async function signInToConsent(page: Page, authorizationUrl: URL) {
    await page.goto(authorizationUrl.href)
    await page.waitForURL(/\/sign-in/)
    await page.fill('input[name="username"]', 'alice')
    await page.fill('input[name="password"]', app.password('alice'))
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForSelector('input[name="code"]')
    await page.fill('input[name="code"]', totpCodeAt(totpSecret, Date.now()))
    await page.locator('form:has(input[name="code"]) button[type="submit"]').first().click()
    await page.waitForSelector('[data-consent]')
  }

  it('signs in with a TOTP code, consents in the app layout, Allow reaches the loopback listener, then list, read and Disconnect', async () => {
    const { oauth, transport, clientId, authorizationUrl } = await startConnecting(
      'Notes Assistant',
      '/notes-assistant.json',
    )
    const page = await browser.context.newPage()
    await signInToConsent(page, authorizationUrl)

    // The consent page as a person sees it: the client's name (unverified), its host, the account's name.
    expect(await page.title()).toContain('Connect Notes Assistant?')
    expect(await page.textContent('[data-client-name]')).toBe('Notes Assistant')
    expect(await page.textContent('[data-unverified]')).toBe('unverified')
    expect(await page.textContent('[data-client-host]')).toBe(new URL(clientId).host)
    expect(await page.textContent('[data-account]')).toBe('Alice Archer')
    expect(await page.textContent('[data-consent]')).not.toContain('demo-alice')
    // The app's own layout (its header and stylesheet) around it.
    expect(await page.locator('header.top').count()).toBe(1)
    expect(await page.locator('link[rel="stylesheet"]').getAttribute('href')).toBe('/assets/portcullis.css')
    await page.screenshot({ path: join(images, 'reference-consent.png'), fullPage: true })
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
    await page.screenshot({ path: join(images, 'reference-consent-phone.png'), fullPage: true })
    await page.setViewportSize({ width: 1200, height: 800 })

    const before = listener.arrivals.length
    await Promise.all([
      page.waitForURL(`${listener.redirectUri}**`),
      page.getByRole('button', { name: 'Allow' }).click(),
    ])
    expect(listener.arrivals.length).toBe(before + 1)
    const arrived = listener.arrivals.at(-1) as URL
    expect(arrived.searchParams.get('iss')).toBe(`${app.url}/oauth`)
    const code = arrived.searchParams.get('code')
    expect(code).toBeTruthy()

    // The SDK takes the code from its listener and exchanges it (PKCE) for tokens.
    // The person is told once, by a notification written with the grant.
    const notices = await settledMailsTo(page, app, {
      to: 'alice@demo.portcullis.invalid',
      accountId: demoAccountId('alice'),
      subject: /^An app was connected to your account$/,
    })
    await expect(notices.count()).resolves.toBe(1)
    await expect(notices.locator('[data-testid="mail-text"]').textContent()).resolves.toContain(
      'Notes Assistant can now act on your',
    )

    await transport.finishAuth(code as string)
    const claims = decodeJwt(oauth.saved.tokens?.access_token ?? '')
    expect(claims).toMatchObject({ sub: demoAccountId('alice'), client_id: clientId, aud: `${app.url}/mcp` })
    const client = new Client({ name: 'Notes Assistant', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: oauth as never }),
    )
    const { resources } = await client.listResources()
    expect(resources.map((resource) => resource.uri)).toContain('reference://capabilities')
    const read = await client.readResource({ uri: 'reference://capabilities' })
    expect(textOf(read.contents)).toMatchObject({ you: { id: demoAccountId('alice'), kind: 'user' } })

    // Connected apps: the name shown at consent, kept even when the client's document host is down.
    documents.routes.set('/notes-assistant.json', { status: 503, body: 'down' })
    await page.goto(`${app.url}/connected-apps`)
    const grantId = claims.grant_id as string
    const row = page.locator(`tr[data-grant="${grantId}"]`)
    expect(await row.textContent()).toContain('Notes Assistant')
    await Promise.all([
      page.waitForURL(/\/connected-apps/),
      row.getByRole('button', { name: 'Disconnect' }).click(),
    ])
    expect(await page.locator(`tr[data-grant="${grantId}"]`).count()).toBe(0)

    // The grant is gone: the client's token and its refresh token are refused.
    oauth.saved.tokens = {
      ...(oauth.saved.tokens as NonNullable<typeof oauth.saved.tokens>),
      access_token: 'x',
    }
    await expect(client.readResource({ uri: 'reference://capabilities' })).rejects.toThrow()
    await client.close()
    await page.close()
  }, 90_000)

  it('Deny sends access_denied to the client, and no app is connected', async () => {
    const { authorizationUrl } = await startConnecting('Denied Agent', '/denied-agent.json')
    const page = await browser.context.newPage()
    // Still signed in from the first run: the authorization goes straight to the consent page.
    await page.goto(authorizationUrl.href)
    await page.waitForSelector('[data-consent]')
    expect(await page.textContent('[data-client-name]')).toBe('Denied Agent')
    await Promise.all([
      page.waitForURL(`${listener.redirectUri}**`),
      page.getByRole('button', { name: 'Deny' }).click(),
    ])
    const arrived = listener.arrivals.at(-1) as URL
    expect(arrived.searchParams.get('error')).toBe('access_denied')
    expect(arrived.searchParams.get('code')).toBeNull()
    await page.goto(`${app.url}/connected-apps`)
    expect(await page.textContent('main')).not.toContain('Denied Agent')
    // A denied client connects nothing, and nobody is told it did.
    const notices = await settledMailsTo(page, app, {
      to: 'alice@demo.portcullis.invalid',
      accountId: demoAccountId('alice'),
      subject: /^An app was connected to your account$/,
    })
    await expect(notices.count()).resolves.toBe(1)
    await page.goto(`${app.url}/connected-apps`)
    expect(await page.locator('tr[data-grant]').evaluateAll((rows) => rows.length)).toBe(0)
    await page.close()
  }, 90_000)

  it('shows a browser a refused authorization request as a page in the app layout, an API client problem+json', async () => {
    const page = await browser.context.newPage()
    const bad = `${app.url}/oauth/auth?${new URLSearchParams({ client_id: 'no-such-client', response_type: 'code' })}`
    const response = await page.goto(bad)
    expect(response?.status()).toBe(400)
    expect(response?.headers()['content-type']).toContain('text/html')
    expect(await page.textContent('main h1')).toBe('This authorization request was refused')
    expect(await page.locator('header.top').count()).toBe(1)
    expect(await page.textContent('[data-code]')).toBe('invalid_client')
    const api = await fetch(bad, { headers: { accept: 'application/json' } })
    expect(api.status).toBe(400)
    expect(api.headers.get('content-type')).toContain('application/problem+json')
    expect(await api.json()).toMatchObject({ status: 400, code: 'invalid_client' })
    await page.close()
  })
})
