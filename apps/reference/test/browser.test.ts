import { mkdir } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, chromiumPath, launchChromium } from './support/chromium.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The pages in headless Chromium (Debian's chromium, driven by playwright-core), as a person uses them,
 * without JavaScript on the pages. Screenshots of each step go to docs/images/ for the tour in
 * docs/reference-app.md.
 */
const IMAGES = fileURLToPath(new URL('../../../docs/images/', import.meta.url))
let app: TestApp
let browser: Browser
let page: Page

const shot = (name: string) => page.screenshot({ path: `${IMAGES}reference-${name}.png`, fullPage: true })
const whoami = (key: string) => fetch(`${app.url}/api/whoami`, { headers: { 'x-api-key': key } })
const keyRow = (keyId: string) => page.locator(`tr[data-key-id="${keyId}"]`)
/** `demo_<16-character key id>_<43-character secret>` (both base64url, so they may contain `_`). */
const keyIdOf = (key: string) => key.slice('demo_'.length, 'demo_'.length + 16)

describe.skipIf(chromiumPath === undefined)('the reference app in a browser', () => {
  beforeAll(async () => {
    await mkdir(IMAGES, { recursive: true })
    app = await startTestApp()
    browser = await launchChromium()
    page = await browser.context.newPage()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('home, then sign in as a demo user with the stand-in', async () => {
    await page.goto(`${app.url}/`)
    await expect(page.locator('h1').textContent()).resolves.toBe('Portcullis reference app')
    await shot('home')
    await page.getByRole('link', { name: 'Sign in', exact: true }).first().click()
    await page.waitForURL(/\/sign-in/)
    await shot('sign-in')
    await page.getByRole('button', { name: 'Sign in as Alice' }).click()
    await page.waitForURL(`${app.url}/`)
    await expect(page.locator('.account .who').textContent()).resolves.toContain('Alice Archer')
  })

  let first = ''
  let replacement = ''

  it('issues an API key and shows it exactly once', async () => {
    await page.goto(`${app.url}/keys`)
    await page.fill('input[name="label"]', 'nightly export')
    await page.selectOption('select[name="scopes"]', 'reports:read')
    await page.getByRole('button', { name: 'Issue key' }).click()
    first = (await page.locator('[data-testid="issued-key"]').textContent()) ?? ''
    expect(first).toMatch(/^demo_[A-Za-z0-9_-]{16}_[A-Za-z0-9_-]{43}$/)
    await shot('api-key-issued')
    const response = await whoami(first)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ principal: { id: 'demo-alice' }, scopes: ['reports:read'] })
    await page.goto(`${app.url}/keys`)
    expect(await page.content()).not.toContain(first)
    expect(await page.content()).not.toContain(first.slice(-43))
    await expect(keyRow(keyIdOf(first)).locator('[data-testid="status"]').textContent()).resolves.toBe(
      'active',
    )
  })

  it('rotates the key with an overlap: both keys work until the overlap ends', async () => {
    await keyRow(keyIdOf(first)).locator('select[name="overlap"]').selectOption('3600')
    await keyRow(keyIdOf(first)).getByRole('button', { name: 'Rotate' }).click()
    replacement = (await page.locator('[data-testid="issued-key"]').textContent()) ?? ''
    expect(replacement).toMatch(/^demo_/)
    expect(replacement).not.toBe(first)
    await expect(keyRow(keyIdOf(first)).locator('[data-testid="status"]').textContent()).resolves.toBe(
      'overlap',
    )
    await shot('api-key-rotated')
    expect((await whoami(first)).status).toBe(200)
    expect((await whoami(replacement)).status).toBe(200)
  })

  it('revokes the replacement: refused at once, with no revoke button left', async () => {
    await keyRow(keyIdOf(replacement)).getByRole('button', { name: 'Revoke' }).click()
    await page.waitForURL(/\/keys\?revoked=/)
    await expect(keyRow(keyIdOf(replacement)).locator('[data-testid="status"]').textContent()).resolves.toBe(
      'revoked',
    )
    await expect(keyRow(keyIdOf(replacement)).getByRole('button').count()).resolves.toBe(0)
    await shot('api-keys')
    expect((await whoami(replacement)).status).toBe(401)
  })

  it('tenant pages: the switcher, role-gated pages, and a forged tenant in the URL is refused', async () => {
    await page.goto(`${app.url}/tenants`)
    await shot('tenants')
    await page.selectOption('select[name="switch"]', 'globex')
    await page.getByRole('button', { name: 'Switch' }).click()
    await page.waitForURL(`${app.url}/tenants/globex`)
    await expect(page.locator('[data-testid="roles"]').textContent()).resolves.toContain('viewer')

    const billing = await page.goto(`${app.url}/tenants/acme/billing`)
    expect(billing?.status()).toBe(200)
    await expect(page.locator('[data-testid="invoices"] tbody tr').count()).resolves.toBe(3)
    await shot('tenant-billing')

    const viewerOnly = await page.goto(`${app.url}/tenants/globex/billing`)
    expect(viewerOnly?.status()).toBe(403)

    const forged = await page.goto(`${app.url}/tenants/initech`)
    expect(forged?.status()).toBe(403)
    await expect(page.locator('h1').textContent()).resolves.toBe('Permission denied')
    expect(await page.content()).not.toContain('Initech')
    await shot('tenant-forgery')
  })

  it('a form posted from another origin is refused, and the attempt is a security event', async () => {
    const attacker: Server = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html')
      response.end(`<form method="post" action="${app.url}/keys"><input name="label" value="stolen">
        <button type="submit">Win a prize</button></form>`)
    })
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve))
    try {
      await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`)
      const [answer] = await Promise.all([
        page.waitForResponse(`${app.url}/keys`),
        page.getByRole('button', { name: 'Win a prize' }).click(),
      ])
      expect(answer.status()).toBe(401)
    } finally {
      attacker.closeAllConnections()
      await new Promise((resolve) => attacker.close(resolve))
    }
    await page.goto(`${app.url}/keys`)
    expect(await page.content()).not.toContain('stolen')
  })

  it('the security events page shows the account’s own events', async () => {
    await page.goto(`${app.url}/events`)
    const events = (await page.locator('[data-testid="events"]').textContent()) ?? ''
    for (const type of [
      'login.succeeded',
      'session.created',
      'api_key.issued',
      'api_key.rotated',
      'api_key.revoked',
      'csrf.refused',
    ]) {
      expect(events).toContain(type)
    }
    expect(events).not.toContain(first)
    await shot('security-events')
  })

  it('the MCP page lists the published resources and a client configuration to copy', async () => {
    await page.goto(`${app.url}/agents`)
    const resources = (await page.locator('[data-testid="resources"]').textContent()) ?? ''
    for (const uri of [
      'reference://capabilities',
      'reference://tenant-projection-schema',
      'tenant://{tenantId}/projection',
      'reference://usage-report',
      'skill://portcullis-reference/SKILL.md',
    ]) {
      expect(resources).toContain(uri)
    }
    const config = JSON.parse((await page.locator('[data-testid="client-config"]').textContent()) ?? '{}')
    expect(config.mcpServers['portcullis-reference']).toMatchObject({ type: 'http', url: `${app.url}/mcp` })
    await shot('mcp')
  })

  it('the demo IdP login page: choose the user, auth_time, ACR and AMR, and see them in the ID token', async () => {
    const idp = app.running.idpUrl ?? ''
    await page.goto(`${idp}/playground`)
    await page.selectOption('select[name="max_age"]', '0')
    await page.selectOption('select[name="acr_values"]', 'urn:portcullis:demo:acr:mfa')
    await page.getByRole('button', { name: 'Start a login' }).click()
    await page.waitForURL(/\/interaction\//)
    await page.check('input[name="username"][value="bob"]')
    await page.selectOption('select[name="auth_age"]', '900')
    await page.check('input[name="amr"][value="otp"]')
    await shot('idp-login')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(/\/playground\/callback/)
    const claims = page.locator('[data-testid="claims"]')
    await expect(claims.locator('[data-claim="sub"]').textContent()).resolves.toBe('bob')
    await expect(claims.locator('[data-claim="acr"]').textContent()).resolves.toBe(
      'urn:portcullis:demo:acr:mfa',
    )
    await expect(claims.locator('[data-claim="amr"]').textContent()).resolves.toBe('pwd otp')
    await expect(claims.locator('[data-claim="auth_time"]').textContent()).resolves.toMatch(
      /\((\d{4}-.*), (89\d|90\d) s ago\)/,
    )
    await shot('idp-id-token')
  })

  it('signs out', async () => {
    await page.goto(`${app.url}/`)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${app.url}/`)
    await expect(page.getByRole('link', { name: 'Sign in', exact: true }).first().isVisible()).resolves.toBe(
      true,
    )
    expect((await page.goto(`${app.url}/keys`))?.status()).toBe(401)
  })
})
