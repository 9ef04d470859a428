import { PostgresAccountStore } from '@portcullis/postgres'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, launchChromiumBrowser } from './support/chromium.js'
import { arrivedMailsTo } from './support/mailbox.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * A signed-in person's addresses, in headless Chromium, by clicking: a new account adds its first
 * address (primary, unverified), every signed-in page shows the verify-your-address banner with its
 * resend button, the link in the newest mail verifies it and the banner goes. A second address is added
 * and verified, made primary (the password again; a session in another browser ends) and the first one
 * removed; the notifications arrive. The mail travels for real: nodemailer over SMTP to the app's own
 * SMTP server, read back on `/dev/mailbox`.
 */
const USERNAME = 'dana-addresses'
const PASSWORD = 'a long passphrase for dana'
const FIRST = 'dana@first.example'
const SECOND = 'dana@second.example'
const ADD_EMAIL = 'form[aria-label="Add an address"] input[name="email"]'
const ADD_PASSWORD = 'form[aria-label="Add an address"] input[name="password"]'

let app: TestApp
let browser: Browser
let person: BrowserContext
let elsewhere: BrowserContext
let page: Page

const words = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim()

/** The newest message to `to` whose subject matches, once `count` such messages arrived (the mailbox lists newest first). */
async function mailTo(to: string, subject: RegExp, count = 1) {
  const mailbox = await person.newPage()
  try {
    const first = (await arrivedMailsTo(mailbox, app.url, { to, subject, count })).first()
    const text = (await first.locator('[data-testid="mail-text"]').textContent()) ?? ''
    const links = await first
      .locator('[data-testid="mail-text"] a[href]')
      .evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href') ?? ''))
    return { text, link: (path: string) => links.find((href) => href.includes(`${path}?`)) ?? '' }
  } finally {
    await mailbox.close()
  }
}

async function signIn(on: Page) {
  await on.goto(`${app.url}/sign-in`)
  await on.fill('input[name="username"]', USERNAME)
  await on.fill('input[name="password"]', PASSWORD)
  await on.getByRole('button', { name: 'Sign in', exact: true }).click()
  await on.waitForURL(`${app.url}/`)
}

async function verifyFrom(to: string, count: number) {
  const mail = await mailTo(to, /^Verify your email address/, count)
  const link = mail.link('/verify-email')
  expect(link.startsWith(`${app.url}/verify-email?flow=`)).toBe(true)
  // A link scanner's GET shows the form and spends nothing.
  expect((await fetch(link)).status).toBe(200)
  await page.goto(link)
  await expect(page.locator('input[name="code"]').inputValue()).resolves.not.toBe('')
  await page.getByRole('button', { name: 'Verify the address' }).click()
  await expect(words(page.locator('[data-testid="verified"]'))).resolves.toBe('The address is verified.')
}

const flash = () => words(page.locator('[data-testid="flash"]'))

describe.skipIf(chromiumPath === undefined)('the addresses of a signed-in account, in a browser', () => {
  beforeAll(async () => {
    app = await startTestApp()
    browser = await launchChromiumBrowser()
    person = await browser.newContext({ viewport: { width: 1200, height: 800 } })
    elsewhere = await browser.newContext()
    page = await person.newPage()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('the first address is unverified: a banner on signed-in pages resends its code, its link verifies it', async () => {
    await page.goto(`${app.url}/sign-up`)
    await page.fill('input[name="username"]', USERNAME)
    await page.fill('input[name="password"]', PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(page.locator('[data-testid="no-address"]').count()).resolves.toBe(1)
    await expect(page.locator('[data-testid="verify-banner"]').count()).resolves.toBe(0)

    // The account page asks no password: adding an address is a page of its own.
    await expect(page.locator('input[type="password"]').count()).resolves.toBe(0)
    await page.getByRole('link', { name: 'Add an address' }).click()
    await page.waitForURL(`${app.url}/account/email/addresses`)
    // A wrong password earns no step-up: nothing is added.
    await page.fill(ADD_EMAIL, FIRST)
    await page.fill(ADD_PASSWORD, `${PASSWORD}-wrong`)
    await page.getByRole('button', { name: 'Add the address' }).click()
    await page.waitForURL(`${app.url}/account/email/addresses`)
    await expect(page.locator(ADD_PASSWORD).getAttribute('aria-invalid')).resolves.toBe('true')
    await page.goto(`${app.url}/account`)
    await expect(page.locator('[data-testid="no-address"]').count()).resolves.toBe(1)

    await page.getByRole('link', { name: 'Add an address' }).click()
    await page.fill(ADD_EMAIL, FIRST)
    await page.fill(ADD_PASSWORD, PASSWORD)
    await page.getByRole('button', { name: 'Add the address' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(flash()).resolves.toContain(`A code went to ${FIRST}`)
    await expect(words(page.locator(`[data-address="${FIRST}"]`))).resolves.toBe(
      `${FIRST} primary not verified`,
    )
    await mailTo(FIRST, /^Verify your email address/, 1)

    // Every signed-in page shows the banner while the primary address is unverified.
    await page.goto(`${app.url}/keys`)
    const banner = page.locator('[data-testid="verify-banner"]')
    await expect(words(banner)).resolves.toContain(`Verify your address ${FIRST}`)
    await banner.getByRole('button', { name: 'Send the code again' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(flash()).resolves.toBe(`A new code went to ${FIRST}.`)

    // The newest mail's link verifies the address (the first code was replaced by the resend).
    await verifyFrom(FIRST, 2)
    await page.goto(`${app.url}/`)
    await expect(page.locator('[data-testid="verify-banner"]').count()).resolves.toBe(0)
    await page.goto(`${app.url}/account`)
    await expect(words(page.locator(`[data-address="${FIRST}"]`))).resolves.toBe(`${FIRST} primary verified`)
  })

  it('a second address, verified, becomes primary; the first is removed; other sessions end; notices arrive', async () => {
    await page.getByRole('link', { name: 'Add an address' }).click()
    await page.fill(ADD_EMAIL, SECOND)
    await page.fill(ADD_PASSWORD, PASSWORD)
    await page.getByRole('button', { name: 'Add the address' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(words(page.locator(`[data-address="${SECOND}"]`))).resolves.toBe(`${SECOND} not verified`)
    const added = await mailTo(FIRST, /^An email address was added/)
    expect(added.text).toContain(SECOND)
    // The primary is removed last: it offers no removal while another address exists.
    await expect(page.getByRole('link', { name: `Remove ${FIRST}` }).count()).resolves.toBe(0)
    await verifyFrom(SECOND, 1)

    const other = await elsewhere.newPage()
    await signIn(other)
    expect((await other.goto(`${app.url}/account`))?.status()).toBe(200)

    await page.goto(`${app.url}/account`)
    await page.getByRole('link', { name: `Make ${SECOND} primary` }).click()
    await page.fill('input[name="password"]', PASSWORD)
    await page.getByRole('button', { name: 'Make it the primary address' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(flash()).resolves.toBe(
      `${SECOND} is your primary address now. Your other sessions were signed out.`,
    )
    expect((await other.goto(`${app.url}/account`))?.status()).toBe(401)
    await mailTo(FIRST, /^Your email address was changed/)
    await mailTo(SECOND, /^Your email address was changed/)

    await page.getByRole('link', { name: `Remove ${FIRST}` }).click()
    await page.fill('input[name="password"]', PASSWORD)
    await page.getByRole('button', { name: 'Remove the address' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(flash()).resolves.toBe(`${FIRST} was removed. Your other sessions were signed out.`)
    await expect(page.locator(`[data-address="${FIRST}"]`).count()).resolves.toBe(0)
    await mailTo(FIRST, /^An email address was removed/)
    await mailTo(SECOND, /^An email address was removed/)

    const store = new PostgresAccountStore({ client: app.postgres })
    const accountId = (await page.locator('[data-testid="account-id"]').textContent()) ?? ''
    const stored = await store.listEmailAddresses(accountId)
    expect(stored.map((each) => `${each.address} ${each.primary} ${each.verified}`)).toEqual([
      `${SECOND} true true`,
    ])
  })
})
