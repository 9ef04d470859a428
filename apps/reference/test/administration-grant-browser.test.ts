import { createHash, randomBytes } from 'node:crypto'
import { PostgresSecurityLog } from '@portcullis/postgres'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoAccountId } from '../src/accounts/local-accounts.js'
import { chromiumPath, launchChromiumBrowser } from './support/chromium.js'
import { authorizationUrl, PUBLIC_CLIENT_REDIRECT, registerPublicClient } from './support/public-client.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * An administrator disconnects one app of an account, in headless Chromium, by clicking: Bob connects
 * an MCP client through the consent page and it reads the MCP endpoint with its token; Alice (the demo
 * directory's administrator) opens Bob's account, sees the app, and disconnects it with her password and
 * a reason. The app is gone from the page, the audit entry names Alice, Bob's account, the grant and the
 * reason, and the client's access and refresh tokens are refused afterwards. A wrong password and no
 * blank reason disconnect nothing, and Bob's own session goes on.
 */
let app: TestApp
let browser: Browser
let admin: BrowserContext
let user: BrowserContext

/** The PKCE verifier of the authorization request, its S256 challenge in place of the shared one. */
const CODE_VERIFIER = randomBytes(32).toString('base64url')
const CODE_CHALLENGE = createHash('sha256').update(CODE_VERIFIER).digest('base64url')
const CLIENT_NAME = 'Administration test agent'

async function signIn(page: Page, username: string, password: string) {
  await page.goto(`${app.url}/sign-in`)
  await page.fill('input[name="username"]', username)
  await page.fill('input[name="password"]', password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.waitForURL(`${app.url}/`)
}

/** `resources/list` on the MCP endpoint with a bearer token. */
const listResources = (token: string) =>
  fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list' }),
  })

async function tokenRequest(body: Record<string, string>) {
  const metadata = (await (
    await fetch(`${app.url}/.well-known/oauth-authorization-server/oauth`)
  ).json()) as {
    token_endpoint: string
  }
  return fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  })
}

describe.skipIf(chromiumPath === undefined)('an administrator disconnects an app, in a browser', () => {
  beforeAll(async () => {
    app = await startTestApp({ authorizationServer: { registration: true } })
    browser = await launchChromiumBrowser()
    admin = await browser.newContext()
    user = await browser.newContext()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('the grant is gone, the audit entry names who, whom and why, and the client’s tokens are refused', async () => {
    // Bob connects an MCP client on the consent page; its token reads the MCP endpoint.
    const clientId = await registerPublicClient(app.url, CLIENT_NAME)
    const bob = await user.newPage()
    await signIn(bob, 'bob', app.password('bob'))
    const authorize = new URL(authorizationUrl(app.url, clientId, 'admin-disconnect'))
    authorize.searchParams.set('code_challenge', CODE_CHALLENGE)
    await bob.goto(authorize.href)
    await bob.waitForURL(/\/oauth\/interaction\//)
    const redirected = bob.waitForRequest((request) => request.url().startsWith(PUBLIC_CLIENT_REDIRECT))
    await bob.getByRole('button', { name: /allow/i }).click()
    const code = new URL((await redirected).url()).searchParams.get('code') ?? ''
    expect(code).not.toBe('')
    const issued = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: PUBLIC_CLIENT_REDIRECT,
      client_id: clientId,
      code_verifier: CODE_VERIFIER,
      resource: `${app.url}/mcp`,
    })
    expect(issued.status, await issued.clone().text()).toBe(200)
    const tokens = (await issued.json()) as { access_token: string; refresh_token?: string }
    expect((await listResources(tokens.access_token)).status).toBe(200)
    expect(tokens.refresh_token).toBeDefined()

    // Alice opens Bob's account: the app is listed by its name.
    const page = await admin.newPage()
    await signIn(page, 'alice', app.password('alice'))
    await page.goto(`${app.url}/admin/accounts?q=bob`)
    await page.locator('[data-testid="hits"]').getByRole('link', { name: 'bob' }).click()
    const rows = page.locator('[data-testid="grants"] tr[data-grant-id]')
    await expect(rows.count()).resolves.toBe(1)
    await expect(rows.first().textContent()).resolves.toContain(CLIENT_NAME)
    const grantId = (await rows.first().getAttribute('data-grant-id')) ?? ''
    expect(grantId).not.toBe('')
    const row = page.locator(`tr[data-grant-id="${grantId}"]`)
    const disconnect = row.getByRole('button', { name: 'Disconnect app' })

    // A wrong password disconnects nothing (the browser's own checks make the reason required).
    await page.fill('input[name="reason"]', 'the agent leaked data')
    await page.fill('input[name="password"]', `${app.password('alice')}-wrong`)
    await disconnect.click()
    await expect(page.locator('[data-testid="field-error"]').textContent()).resolves.toBe(
      'That password is wrong.',
    )
    await expect(row.count()).resolves.toBe(1)
    expect((await listResources(tokens.access_token)).status).toBe(200)

    // A blank reason (spaces pass the browser's check) disconnects nothing either.
    await page.fill('input[name="reason"]', '   ')
    await page.fill('input[name="password"]', app.password('alice'))
    await disconnect.click()
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain('Give a reason')
    await expect(row.count()).resolves.toBe(1)
    expect((await listResources(tokens.access_token)).status).toBe(200)

    // With her password and a reason: disconnected, and the page says so.
    await page.fill('input[name="reason"]', 'the agent leaked data')
    await page.fill('input[name="password"]', app.password('alice'))
    await disconnect.click()
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain(
      'The connected app is disconnected',
    )
    await expect(page.locator(`tr[data-grant-id="${grantId}"]`).count()).resolves.toBe(0)
    await expect(page.locator('[data-testid="events"]').textContent()).resolves.toMatch(
      /administration\.grant_revoked\s+\S[^,]*, by demo-alice/,
    )

    // The client's tokens are refused: the access token at the MCP endpoint, the refresh token at the server.
    const refused = await listResources(tokens.access_token)
    expect(refused.status).toBe(401)
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token ?? '',
      client_id: clientId,
    })
    expect(refreshed.status).toBe(400)
    expect(((await refreshed.json()) as { error?: string }).error).toBe('invalid_grant')

    // The audit entry: the administrator, the account, the grant and the reason, no secret.
    const log = new PostgresSecurityLog({ client: app.postgres })
    const page1 = await log.listForAccount({ accountId: demoAccountId('bob'), limit: 50 })
    const audit = page1.entries.filter((entry) => entry.type === 'administration.grant_revoked')
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({
      accountId: demoAccountId('bob'),
      actorId: demoAccountId('alice'),
      details: expect.objectContaining({ grantId, reasonText: 'the agent leaked data' }),
    })
    const text = JSON.stringify(audit[0])
    for (const secret of [tokens.access_token, tokens.refresh_token ?? '', code, app.password('alice')]) {
      expect(text).not.toContain(secret)
    }
    // Bob's own session goes on: only the app was disconnected.
    expect((await bob.goto(`${app.url}/account`))?.status()).toBe(200)
  })
})
