import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningReferenceApp, startReferenceApp } from '../src/server.js'
import { chromiumPath, launchChromiumBrowser } from './support/chromium.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * Administration in headless Chromium, by clicking, over two instances of the app on one database: Bob
 * is signed in and his session works on the second instance; Alice (the demo directory's administrator)
 * finds him on the first, disables his account with her password and a reason, and Bob's open session is
 * refused on the second instance at once. Bob (no admin role) gets 403 on the administration page, and
 * a cross-site form to it changes nothing.
 */
let app: TestApp
let other: RunningReferenceApp
let browser: Browser
let admin: BrowserContext
let user: BrowserContext

async function signIn(page: Page, origin: string, username: string, password: string) {
  await page.goto(`${origin}/sign-in`)
  await page.fill('input[name="username"]', username)
  await page.fill('input[name="password"]', password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.waitForURL(`${origin}/`)
}

describe.skipIf(chromiumPath === undefined)('administration, in a browser, over two instances', () => {
  beforeAll(async () => {
    app = await startTestApp()
    other = await startReferenceApp({
      ...app.config,
      publicUrl: app.url,
      demoIdp: { enabled: false, port: 0 },
      databaseApplicationName: 'portcullis-administration-second',
    })
    browser = await launchChromiumBrowser()
    admin = await browser.newContext()
    user = await browser.newContext()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await other?.close()
    await app?.close()
  })

  it("an administrator disables an account; that user's open session is refused at once on the other instance", async () => {
    const bob = await user.newPage()
    await signIn(bob, app.url, 'bob', app.password('bob'))
    // Bob's session works on the second instance too (same database, same cookie), and is cached there.
    expect((await bob.goto(`${other.url}/account`))?.status()).toBe(200)
    // Bob is no administrator.
    expect((await bob.goto(`${app.url}/admin/accounts`))?.status()).toBe(403)

    const page = await admin.newPage()
    await signIn(page, app.url, 'alice', app.password('alice'))
    await page.goto(`${app.url}/admin/accounts`)
    await page.fill('input[name="q"]', 'bo')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.locator('[data-testid="hits"]').getByRole('link', { name: 'bob' }).click()
    await expect(page.locator('[data-testid="status"]').textContent()).resolves.toBe('active')

    // A wrong password changes nothing.
    await page.fill('input[name="reason"]', 'reported: shared credentials')
    await page.fill('input[name="password"]', `${app.password('alice')}-wrong`)
    await page.getByRole('button', { name: 'Disable account' }).click()
    await expect(page.locator('[data-testid="status"]').textContent()).resolves.toBe('active')
    expect((await bob.goto(`${other.url}/account`))?.status()).toBe(200)

    await page.fill('input[name="reason"]', 'reported: shared credentials')
    await page.fill('input[name="password"]', app.password('alice'))
    await page.getByRole('button', { name: 'Disable account' }).click()
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain(
      'The account is disabled',
    )
    await expect(page.locator('[data-testid="status"]').textContent()).resolves.toBe('disabled')
    const started = performance.now()
    let loads = 1
    let status = (await bob.goto(`${other.url}/account`))?.status()
    while (status === 200 && performance.now() - started < 2_000) {
      loads += 1
      status = (await bob.goto(`${other.url}/account`))?.status()
    }
    const refusedAfter = performance.now() - started
    console.log(
      `disabled on one instance: the session refused on the other at page load ${loads}, ${refusedAfter.toFixed(0)} ms after the answer`,
    )
    expect(status).toBe(401)
    // Bob cannot sign in again; the audit entry names the administrator.
    await bob.goto(`${app.url}/sign-in`)
    await bob.fill('input[name="username"]', 'bob')
    await bob.fill('input[name="password"]', app.password('bob'))
    await bob.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expect(bob.locator('[role="alert"]').first().textContent()).resolves.toContain(
      'This account is disabled',
    )
    await expect(page.locator('[data-testid="events"]').textContent()).resolves.toContain(
      'administration.account_disabled',
    )

    // Enabled again, Bob signs in.
    await page.fill('input[name="reason"]', 'cleared')
    await page.fill('input[name="password"]', app.password('alice'))
    await page.getByRole('button', { name: 'Enable account' }).click()
    await expect(page.locator('[data-testid="status"]').textContent()).resolves.toBe('active')
    await signIn(bob, app.url, 'bob', app.password('bob'))
    expect((await bob.goto(`${other.url}/account`))?.status()).toBe(200)
  })

  it('refuses a cross-site administrative form', async () => {
    const page = await admin.newPage()
    await page.goto(`${app.url}/admin/accounts?q=carol`)
    const href = await page.locator('[data-testid="hits"] a').first().getAttribute('href')
    const answer = await page.request.post(`${app.url}${href}`, {
      form: { action: 'disable', reason: 'forged', password: app.password('alice') },
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      maxRedirects: 0,
    })
    expect(answer.status()).toBe(403)
    await page.goto(`${app.url}${href}`)
    await expect(page.locator('[data-testid="status"]').textContent()).resolves.toBe('active')
  })
})
