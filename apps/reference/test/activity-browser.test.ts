import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, launchChromiumBrowser } from './support/chromium.js'
import { authorizationUrl, PUBLIC_CLIENT_REDIRECT, registerPublicClient } from './support/public-client.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * What a person sees of their own account, in headless Chromium, by clicking: Alice signs in on a laptop
 * (after a wrong password) and on a phone (another browser profile), sees both devices by name on the
 * "Sessions" page, signs the phone out from the laptop, and the phone is refused at once. "Recent
 * activity" shows her sign-ins with their devices and the failed attempt. Both pages fit a phone.
 */
const LAPTOP_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const PHONE_AGENT =
  'Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36'
const PHONE = { width: 390, height: 844 }

let app: TestApp
let browser: Browser
let laptop: BrowserContext
let phone: BrowserContext

const words = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim()

async function signIn(page: Page, password: string) {
  await page.goto(`${app.url}/sign-in`)
  await page.fill('input[name="username"]', 'alice')
  await page.fill('input[name="password"]', password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
}

/** Reloads the activity page until it lists `count` items of `kind` (the log is written in batches). */
async function activityItems(page: Page, kind: string, count: number): Promise<Locator> {
  const deadline = Date.now() + 15_000
  for (;;) {
    await page.goto(`${app.url}/account/activity`)
    const items = page.locator(`[data-testid="activity"] li[data-activity="${kind}"]`)
    if ((await items.count()) >= count) return items
    if (Date.now() > deadline) throw new Error(`fewer than ${count} ${kind} items`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

const scrollWidth = (page: Page) => page.evaluate('document.scrollingElement.scrollWidth') as Promise<number>

describe.skipIf(chromiumPath === undefined)('recent activity and sessions, in a browser', () => {
  beforeAll(async () => {
    app = await startTestApp({ authorizationServer: { registration: true } })
    browser = await launchChromiumBrowser()
    laptop = await browser.newContext({ userAgent: LAPTOP_AGENT, viewport: { width: 1200, height: 800 } })
    phone = await browser.newContext({ userAgent: PHONE_AGENT, viewport: PHONE, isMobile: true })
  })
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('two devices by name, the other signed out from here and refused at once, the sign-ins and a failure in the activity', async () => {
    const page = await laptop.newPage()
    // A wrong password first: the sign-in page says so, and the activity will show the attempt.
    await signIn(page, `${app.password('alice')}-wrong`)
    await expect(page.locator('[role="alert"]').first().isVisible()).resolves.toBe(true)
    await signIn(page, app.password('alice'))
    await page.waitForURL(`${app.url}/`)
    const handset = await phone.newPage()
    await signIn(handset, app.password('alice'))
    await handset.waitForURL(`${app.url}/`)

    // The account page links to the sessions page.
    await page.goto(`${app.url}/account`)
    await page.getByRole('link', { name: 'Your devices' }).click()
    await page.waitForURL(`${app.url}/account/sessions`)
    const rows = page.locator('[data-testid="sessions"] tbody tr')
    await expect(rows.count()).resolves.toBe(2)
    const here = page.locator('tr[data-current="true"]')
    await expect(words(here.locator('[data-testid="device"]'))).resolves.toBe('Chrome 131 on Windows 10')
    await expect(words(here)).resolves.toContain('this device')
    const other = page.locator('[data-testid="sessions"] tbody tr:not([data-current])')
    await expect(words(other.locator('[data-testid="device"]'))).resolves.toMatch(/^Chrome 131 on Android/)

    // Signing the phone out from here: the phone is refused on its next request.
    await other.getByRole('button', { name: 'Sign out this device' }).click()
    await page.waitForURL(`${app.url}/account/sessions`)
    await expect(words(page.locator('[data-testid="flash"]'))).resolves.toBe('That device is signed out.')
    await expect(rows.count()).resolves.toBe(1)
    expect((await handset.goto(`${app.url}/account`))?.status()).toBe(401)
    expect((await page.goto(`${app.url}/account`))?.status()).toBe(200)

    // Recent activity: both sign-ins with their devices and the failed attempt, newest first.
    await page.goto(`${app.url}/account`)
    await page.getByRole('link', { name: 'Recent activity' }).click()
    await page.waitForURL(`${app.url}/account/activity`)
    const signIns = await activityItems(page, 'signed_in', 2)
    await expect(words(signIns.nth(0))).resolves.toMatch(
      /^Signed in with your password\. just now, Chrome 131 on Android/,
    )
    await expect(words(signIns.nth(1))).resolves.toMatch(
      /^Signed in with your password\. just now, Chrome 131 on Windows 10/,
    )
    const failed = page.locator('[data-testid="activity"] li[data-activity="sign_in_failed"]')
    await expect(failed.count()).resolves.toBe(1)
    await expect(words(failed)).resolves.toContain('A sign-in failed: wrong password.')
    // The failed attempt names the device it came from (parsed from its User-Agent, never stored raw).
    await expect(words(failed)).resolves.toMatch(/just now, Chrome 131 on Windows 10/)
    const signedOut = await activityItems(page, 'signed_out', 1)
    await expect(words(signedOut.first())).resolves.toContain('A session was signed out.')
    // Newest first: the sign-out, then the phone's sign-in, the laptop's, and the failure last.
    const order = await page
      .locator('[data-testid="activity"] li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-activity')))
    expect(order).toEqual(['signed_out', 'signed_in', 'signed_in', 'sign_in_failed'])
  })

  it('an app approved on the consent page, then disconnected, is in the activity both times', async () => {
    const clientId = await registerPublicClient(app.url, 'Activity test agent')
    const page = await laptop.newPage()
    await page.goto(authorizationUrl(app.url, clientId, 'activity'))
    await page.waitForURL(/\/oauth\/interaction\//)
    const redirected = page.waitForRequest((request) => request.url().startsWith(PUBLIC_CLIENT_REDIRECT))
    await page.getByRole('button', { name: /allow/i }).click()
    await redirected
    // That tab goes on to the client's redirect URI, where nothing listens, and an error page: read on in
    // another, so no navigation of it races the next one.
    const account = await laptop.newPage()
    const connected = await activityItems(account, 'client_connected', 1)
    await expect(words(connected.first())).resolves.toContain('Connected Activity test agent.')
    // Disconnecting it on the connected-apps page is there too.
    await account.goto(`${app.url}/connected-apps`)
    await account.getByRole('button', { name: 'Disconnect' }).first().click()
    await account.waitForURL(`${app.url}/connected-apps?disconnected=1`)
    const disconnected = await activityItems(account, 'client_disconnected', 1)
    await expect(words(disconnected.first())).resolves.toContain('Disconnected an app.')
  })

  it('both pages fit a phone', async () => {
    const handset = await phone.newPage()
    await signIn(handset, app.password('alice'))
    await handset.waitForURL(`${app.url}/`)
    for (const path of ['/account/sessions', '/account/activity']) {
      expect((await handset.goto(`${app.url}${path}`))?.status(), path).toBe(200)
      expect({ path, width: await scrollWidth(handset) }).toEqual({ path, width: PHONE.width })
    }
  })
})
