import { PostgresAccountStore, PostgresNotificationSettings } from '@portcullis/postgres'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, launchChromiumBrowser } from './support/chromium.js'
import { arrivedMailsTo } from './support/mailbox.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * Forgetting a password, in headless Chromium, by clicking: "Forgot password?" on the sign-in page, the
 * development mailbox, the link in the mail, a new password. Bob is signed in meanwhile in a second
 * browser (another profile): the reset signs him out there, and the "password reset" notification
 * arrives. The mail travels for real: the outbox drain sends it with nodemailer over SMTP to the app's
 * own SMTP server, and the mailbox page shows what that server received.
 */
const PHONE = { width: 390, height: 844 }
const BOB = 'bob@demo.portcullis.invalid'
const NEW_PASSWORD = 'a brand new passphrase for bob'

let app: TestApp
let browser: Browser
let person: BrowserContext
let elsewhere: BrowserContext
let page: Page

/** The text of an element as a person reads it (whitespace collapsed). */
const words = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim()

/** Reloads the mailbox until a message to `to` whose subject matches arrives (the drain sends after commit). */
async function mailTo(to: string, subject: RegExp) {
  return (await arrivedMailsTo(page, app.url, { to, subject })).first()
}

async function signIn(on: Page, password: string, username = 'bob') {
  await on.goto(`${app.url}/sign-in`)
  await on.fill('input[name="username"]', username)
  await on.fill('input[name="password"]', password)
  await on.getByRole('button', { name: 'Sign in', exact: true }).click()
}

describe.skipIf(chromiumPath === undefined)('a forgotten password, by mail, in a browser', () => {
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

  it('forgot password, the mailbox, the link, a new password: the other session ends, the notice arrives', async () => {
    // Bob's other browser, signed in.
    const other = await elsewhere.newPage()
    await signIn(other, app.password('bob'))
    await other.waitForURL(`${app.url}/`)
    expect((await other.goto(`${app.url}/account`))?.status()).toBe(200)

    // Here: the sign-in page's "Forgot password?", then the address.
    await page.goto(`${app.url}/sign-in`)
    await page.getByRole('link', { name: 'Forgot password?' }).click()
    await page.waitForURL(`${app.url}/forgot-password`)
    await page.fill('input[name="email"]', BOB)
    const requested = page.waitForResponse((response) => response.url().includes('/reset-password?'))
    await page.getByRole('button', { name: 'Send a code' }).click()
    const codePage = await requested
    expect(codePage.headers()['referrer-policy']).toBe('no-referrer')
    expect(codePage.headers()['cache-control']).toBe('no-store')
    await expect(page.locator('[data-testid="sent"]').textContent()).resolves.toContain('If an account has')

    // The mailbox: the reset mail, with its code and its link.
    const mail = await mailTo(BOB, /^Reset your/)
    const text = (await mail.locator('[data-testid="mail-text"]').textContent()) ?? ''
    const link =
      (await mail.locator('[data-testid="mail-text"] a[href*="/reset-password?"]').getAttribute('href')) ?? ''
    expect(link.startsWith(`${app.url}/reset-password?flow=`)).toBe(true)
    expect(link).toMatch(/#code=/)
    expect(text).toContain(new URLSearchParams(new URL(link).hash.slice(1)).get('code') ?? 'no code')

    // A link scanner fetches the link first: a GET shows the form and spends nothing.
    expect((await fetch(link)).status).toBe(200)

    // Following the link fills the code in (from the fragment, which leaves the address bar).
    await mail.locator('[data-testid="mail-text"] a[href*="/reset-password?"]').click()
    await page.waitForURL(/\/reset-password\?flow=/)
    await expect(page.locator('input[name="code"]').inputValue()).resolves.not.toBe('')
    expect(new URL(page.url()).hash).toBe('')
    await page.fill('input[name="password"]', NEW_PASSWORD)
    await page.getByRole('button', { name: 'Reset the password' }).click()
    await page.waitForURL(`${app.url}/reset-password/done`)
    await expect(words(page.locator('[data-testid="reset-done"]'))).resolves.toContain(
      'Every session of the account was signed out',
    )

    // The other browser is signed out.
    expect((await other.goto(`${app.url}/account`))?.status()).toBe(401)

    // The notification is in the mailbox.
    const notice = await mailTo(BOB, /^Your password was reset/)
    await expect(notice.locator('[data-testid="mail-text"]').textContent()).resolves.toMatch(/reset/i)

    // The old password no longer signs in; the new one does.
    await signIn(page, app.password('bob'))
    await expect(page.locator('[role="alert"]').textContent()).resolves.toContain(
      'Wrong username or password',
    )
    await signIn(page, NEW_PASSWORD)
    await page.waitForURL(`${app.url}/`)
    await expect(page.locator('.account .who').textContent()).resolves.toContain('Bob Baker')
  })

  it('the link’s code works once: the same link again is refused, and nothing changes', async () => {
    const mail = await mailTo(BOB, /^Reset your/)
    const link =
      (await mail.locator('[data-testid="mail-text"] a[href*="/reset-password?"]').getAttribute('href')) ?? ''
    await page.goto(link)
    await page.fill('input[name="password"]', 'yet another passphrase here')
    await page.getByRole('button', { name: 'Reset the password' }).click()
    await expect(page.locator('[data-testid="field-error"]').textContent()).resolves.toContain(
      'wrong, expired or already used',
    )
    await signIn(page, NEW_PASSWORD)
    await page.waitForURL(`${app.url}/`)
  })

  it('the account page shows the address and turns a kind of notification off, and on again', async () => {
    await page.goto(`${app.url}/account`)
    await expect(words(page.locator('[data-address="bob@demo.portcullis.invalid"]'))).resolves.toBe(
      'bob@demo.portcullis.invalid primary verified',
    )
    const box = page.getByRole('checkbox', { name: 'an identity provider was linked' })
    await expect(box.isChecked()).resolves.toBe(true)
    await box.uncheck()
    await page.getByRole('button', { name: 'Save the notification settings' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toBe(
      'Notification settings saved.',
    )
    await expect(box.isChecked()).resolves.toBe(false)
    const stored = await new PostgresNotificationSettings({ client: app.postgres }).getOptOuts('demo-bob')
    expect(stored).toEqual(['identity-linked'])
    await box.check()
    await page.getByRole('button', { name: 'Save the notification settings' }).click()
    await page.waitForURL(`${app.url}/account`)
    expect(await new PostgresNotificationSettings({ client: app.postgres }).getOptOuts('demo-bob')).toEqual(
      [],
    )
  })

  it('an email change waits for the new address’s code, and the old address can undo it', async () => {
    const ALICE = 'alice@demo.portcullis.invalid'
    const NEXT = 'alice@new.example'
    await signIn(page, app.password('alice'), 'alice')
    await page.waitForURL(`${app.url}/`)
    await page.goto(`${app.url}/account`)
    await page.getByRole('link', { name: 'Change the email address' }).click()
    // A wrong password earns no step-up: the page says so beside the field, and nothing is written.
    await page.fill('input[name="email"]', NEXT)
    await page.fill('input[name="password"]', `${app.password('alice')}-wrong`)
    await page.getByRole('button', { name: 'Send a code to the new address' }).click()
    await page.waitForURL(`${app.url}/account/email/change`)
    await expect(page.locator('input[name="password"]').getAttribute('aria-invalid')).resolves.toBe('true')
    await page.fill('input[name="email"]', NEXT)
    await page.fill('input[name="password"]', app.password('alice'))
    await page.getByRole('button', { name: 'Send a code to the new address' }).click()
    await page.waitForURL(/\/email\/change\/confirm\?flow=/)
    const store = new PostgresAccountStore({ client: app.postgres })
    const primary = async () =>
      (await store.listEmailAddresses('demo-alice')).find((each) => each.primary)?.address
    // Nothing changed yet: a mistyped address would take nothing over.
    expect(await primary()).toBe(ALICE)

    const code = await mailTo(NEXT, /^Confirm your new email address/)
    await code.locator('[data-testid="mail-text"] a[href*="/email/change/confirm?"]').click()
    await page.waitForURL(/\/email\/change\/confirm\?flow=/)
    await page.getByRole('button', { name: 'Confirm the new address' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain(
      `Your email address is ${NEXT} now.`,
    )
    expect(await primary()).toBe(NEXT)

    // The old address was told, with a link that undoes it (no session needed).
    const notice = await mailTo(ALICE, /being changed/)
    const undo =
      (await notice
        .locator('[data-testid="mail-text"] a[href*="/email/change/undo?"]')
        .getAttribute('href')) ?? ''
    const stranger = await (await browser.newContext()).newPage()
    await stranger.goto(undo)
    await stranger.getByRole('button', { name: 'Undo the change' }).click()
    await expect(words(stranger.locator('[data-testid="undone"]'))).resolves.toContain(
      `${ALICE} is the account's address again`,
    )
    expect(await primary()).toBe(ALICE)
    await stranger.context().close()
  })

  it('the new pages and the mailbox fit a 390 px phone', async () => {
    const phone = await browser.newContext({ viewport: PHONE })
    try {
      const small = await phone.newPage()
      for (const path of ['/sign-in', '/forgot-password', '/reset-password?flow=abc', '/dev/mailbox']) {
        const answer = await small.goto(`${app.url}${path}`)
        expect(answer?.status(), path).toBe(200)
        const width = (await small.evaluate('document.scrollingElement.scrollWidth')) as number
        expect({ path, width }).toEqual({ path, width: PHONE.width })
      }
      expect(await small.locator('article.mail').count()).toBeGreaterThan(1)
    } finally {
      await phone.close()
    }
  })
})
