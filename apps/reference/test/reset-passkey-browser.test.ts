import type { CDPSession, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, chromiumPath } from './support/chromium.js'
import { addVirtualAuthenticator, startPasskeyBrowser } from './support/passkey-browser.js'
import type { TestApp } from './support/reference-app.js'

/**
 * A forgotten password of an account with a passkey, in headless Chromium, by clicking: Carol adds a
 * passkey (a virtual authenticator of the DevTools WebAuthn domain stands in for her device), signs
 * out, asks for a reset, follows the mailed link and sets a new password; the password is set only
 * once her passkey confirms it. A passkey that does not verify her changes nothing.
 */
const CAROL = 'carol@demo.portcullis.invalid'
const NEW_PASSWORD = 'a brand new passphrase for carol'

let app: TestApp
let browser: Browser
let page: Page
let cdp: CDPSession
let base = ''

async function signIn(password: string) {
  await page.goto(`${base}/sign-in`)
  await page.fill('form[aria-label="Sign in with a password"] input[name="username"]', 'carol')
  await page.fill('form[aria-label="Sign in with a password"] input[name="password"]', password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
}

/** Reloads the mailbox until a reset mail to Carol arrives that was not there before; its link. */
async function resetLink(seen: ReadonlySet<string>): Promise<string> {
  const deadline = Date.now() + 20_000
  for (;;) {
    await page.goto(`${base}/dev/mailbox`)
    const links = page.locator('article.mail', {
      has: page.locator('[data-testid="mail-to"]', { hasText: CAROL }),
    })
    const hrefs = await links
      .locator('[data-testid="mail-text"] a[href*="/reset-password?"]')
      .evaluateAll((anchors) => anchors.map((anchor) => (anchor as unknown as { href: string }).href))
    const fresh = hrefs.find((href) => !seen.has(href))
    if (fresh !== undefined) return fresh
    if (Date.now() > deadline) throw new Error('no new reset mail to carol')
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** "Forgot password?", the address, the mailed link, the new password: the passkey page. */
async function resetUpToThePasskey(seen: Set<string>) {
  await page.goto(`${base}/sign-in`)
  await page.getByRole('link', { name: 'Forgot password?' }).click()
  await page.fill('input[name="email"]', CAROL)
  await page.getByRole('button', { name: 'Send a code' }).click()
  await page.waitForURL(/\/reset-password\?flow=/)
  const link = await resetLink(seen)
  seen.add(link)
  await page.goto(link)
  await expect(page.locator('input[name="code"]').inputValue()).resolves.not.toBe('')
  await page.fill('input[name="password"]', NEW_PASSWORD)
  await page.getByRole('button', { name: 'Reset the password' }).click()
  await page.getByRole('button', { name: 'Confirm with your passkey' }).waitFor()
}

describe.skipIf(chromiumPath === undefined)('a forgotten password of a passkey account, in a browser', () => {
  beforeAll(async () => {
    ;({ app, browser, page, cdp, base } = await startPasskeyBrowser())
    // No conditional UI on the sign-in page: the virtual authenticator would sign Carol in with it.
    await page.addInitScript({
      content: 'PublicKeyCredential.isConditionalMediationAvailable = async () => false',
    })
  })
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('the reset asks for the passkey: without it nothing changes, with it the new password is set', async () => {
    const authenticatorId = await addVirtualAuthenticator(cdp)
    // Carol adds a passkey (after the password step-up), then signs out.
    await signIn(app.password('carol'))
    await page.waitForURL(`${base}/`)
    await page.goto(`${base}/account`)
    await page.getByRole('link', { name: 'Add a passkey' }).click()
    await page.locator('form[aria-label="Add a passkey"] input[name="password"]').fill(app.password('carol'))
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await page.waitForURL(`${base}/account/passkeys/new`)
    await page.fill('input[name="passkey_name"]', 'Laptop')
    await page.getByRole('button', { name: 'Create the passkey' }).click()
    await page.waitForURL(`${base}/account?passkey=added`)
    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    await page.waitForURL(`${base}/`)

    // The right code and a new password lead to the passkey, not to a reset.
    const seen = new Set<string>()
    await resetUpToThePasskey(seen)
    await expect(page.locator('.lead').textContent()).resolves.toContain('This account has a passkey')
    // Her device does not verify her (user verification fails): the passkey is refused, nothing is reset.
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false })
    await page.getByRole('button', { name: 'Confirm with your passkey' }).click()
    await page.locator('[data-passkey-status]:not([hidden])').waitFor()
    expect(page.url()).not.toContain('/reset-password/done')
    await signIn(NEW_PASSWORD)
    await expect(page.locator('[role="alert"]').first().textContent()).resolves.toContain(
      'Wrong username or password',
    )

    // Verified again, a new code and the passkey set the password.
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true })
    await resetUpToThePasskey(seen)
    await page.getByRole('button', { name: 'Confirm with your passkey' }).click()
    await page.waitForURL(`${base}/reset-password/done`)
    await expect(page.locator('[data-testid="reset-done"]').textContent()).resolves.toContain(
      'Your password is reset',
    )
    await signIn(app.password('carol'))
    await expect(page.locator('[role="alert"]').first().textContent()).resolves.toContain(
      'Wrong username or password',
    )
    await signIn(NEW_PASSWORD)
    await page.waitForURL(`${base}/`)
  })
})
