import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, chromiumPath, launchChromium } from './support/chromium.js'
import { authorizationUrl, registerPublicClient } from './support/public-client.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * Every page on a phone (390 px wide, in headless Chromium): none scrolls sideways, and the header (the
 * brand, the account and the menu) stays compact. Measured as the page is: `scrollWidth` of the document
 * after the page has laid out, fonts and all.
 */
const PHONE = { width: 390, height: 844 }
/** The header's height on a phone: the brand and the account on one line, the menu on the next. */
const COMPACT_HEADER = 110

let app: TestApp
let browser: Browser
let page: Page

const width = () => page.evaluate('document.scrollingElement.scrollWidth') as Promise<number>
const headerHeight = () =>
  page.evaluate("document.querySelector('header.top').getBoundingClientRect().height") as Promise<number>
/** The elements wider than the phone, for a failure message that says what pushed the page. */
const wide = () =>
  page.evaluate(`[...document.querySelectorAll('body *')]
    .filter((element) => element.getBoundingClientRect().right > ${PHONE.width} + 0.5)
    .slice(0, 5).map((element) => element.tagName + '.' + element.className)`) as Promise<string[]>

async function measure(path: string, expected = 200) {
  const response = await page.goto(`${app.url}${path}`)
  expect(response?.status(), path).toBe(expected)
  expect({ path, width: await width(), wide: await wide() }).toEqual({ path, width: PHONE.width, wide: [] })
  expect(await headerHeight(), path).toBeLessThanOrEqual(COMPACT_HEADER)
}

describe.skipIf(chromiumPath === undefined)('every page on a 390 px phone', () => {
  beforeAll(async () => {
    app = await startTestApp({ authorizationServer: { registration: true } })
    browser = await launchChromium()
    page = await browser.context.newPage()
    await page.setViewportSize(PHONE)
  })
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('signed out: home, sign-in, sign-up and the sign-in-required page', async () => {
    for (const path of ['/', '/sign-in', '/sign-up', '/agents']) await measure(path)
    await measure('/keys', 401)
  })

  it('signed in: every page of the app, with long keys, tables and forms', async () => {
    await page.goto(`${app.url}/sign-in`)
    await page.fill('input[name="username"]', 'alice')
    await page.fill('input[name="password"]', app.password('alice'))
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForURL(`${app.url}/`)
    // A key shown once (a long unbroken value), then the table of keys and a revocation to confirm.
    await page.goto(`${app.url}/keys`)
    await page.fill('input[name="label"]', 'a key with a rather long label for a phone')
    await page.getByRole('button', { name: 'Issue key' }).click()
    await page.waitForURL(`${app.url}/keys`)
    expect(await width()).toBe(PHONE.width)
    const keyId = (await page.locator('tr[data-key-id]').first().getAttribute('data-key-id')) ?? ''
    await page.locator('tr[data-key-id]').first().getByRole('button', { name: 'Replace' }).click()
    await page.waitForURL(`${app.url}/keys`)
    expect(await width()).toBe(PHONE.width)
    for (const path of [
      '/',
      '/keys',
      `/keys/${keyId}/revoke`,
      '/account',
      '/account/password',
      '/account/confirm/delete-account',
      '/account/confirm/totp-enroll',
      '/account/sessions',
      '/account/activity',
      '/connected-apps',
      '/tenants',
      '/tenants/acme',
      '/tenants/acme/billing',
      '/events',
      '/agents',
      '/sign-in',
      '/sign-up',
    ]) {
      await measure(path)
    }
    await measure('/nowhere', 404)
    await measure('/tenants/initech', 403)
    // The unlink confirmation of the linked demo identity.
    await page.goto(`${app.url}/account`)
    const unlink =
      (await page.locator('[data-testid="links"] a', { hasText: 'Unlink' }).getAttribute('href')) ?? ''
    await measure(unlink)
  })

  it('two-step sign-in setup: the QR code and the key fit', async () => {
    await page.goto(`${app.url}/account/confirm/totp-enroll`)
    await page.fill('input[name="password"]', app.password('alice'))
    await page.getByRole('button', { name: 'Set up two-step sign-in' }).click()
    await page.waitForURL(`${app.url}/account/totp/setup`)
    await measure('/account/totp/setup')
  })

  it('the consent page of the authorization server, in the app’s look', async () => {
    const clientId = await registerPublicClient(app.url, 'A phone test agent with a long name that wraps')
    await page.goto(authorizationUrl(app.url, clientId, 'phone'))
    await page.waitForURL(/\/oauth\/interaction\//)
    await page.getByRole('button', { name: /allow/i }).waitFor()
    expect({ width: await width(), wide: await wide() }).toEqual({ width: PHONE.width, wide: [] })
    expect(await headerHeight()).toBeLessThanOrEqual(COMPACT_HEADER)
  })
})
