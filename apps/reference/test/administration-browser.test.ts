import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningReferenceApp } from '../src/server.js'
import { chromiumPath, launchChromiumBrowser } from './support/chromium.js'
import { startSecondInstance, startTestApp, type TestApp } from './support/reference-app.js'

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
    other = await startSecondInstance(app, 'portcullis-administration-second')
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

  it("revokes one of an account's API keys, requires a password reset (the mail arrives), then deletes it", async () => {
    const bob = await user.newPage()
    await bob.goto(`${app.url}/keys`)
    await bob.fill('input[name="label"]', 'admin test key')
    await bob.selectOption('select[name="scopes"]', 'reports:read')
    await bob.getByRole('button', { name: 'Issue key' }).click()
    await bob.waitForURL(`${app.url}/keys`)
    const key = (await bob.locator('[data-testid="issued-key"]').textContent()) ?? ''
    // <prefix>_<16-character id>_<secret>: the id may itself contain `_`, so it is read by its length
    const prefix = key.slice(0, key.indexOf('_'))
    const keyId = key.slice(prefix.length + 1, prefix.length + 17)
    expect(key.slice(prefix.length + 17, prefix.length + 18)).toBe('_')
    const whoami = () => fetch(`${app.url}/api/whoami`, { headers: { 'x-api-key': key } })
    expect((await whoami()).status).toBe(200)

    const page = await admin.newPage()
    await page.goto(`${app.url}/admin/accounts?q=bob`)
    await page.locator('[data-testid="hits"]').getByRole('link', { name: 'bob' }).click()
    const accountPath = new URL(page.url()).pathname
    const change = async (reason: string, button: ReturnType<Page['getByRole']>) => {
      await page.fill('input[name="reason"]', reason)
      await page.fill('input[name="password"]', app.password('alice'))
      await button.click()
    }
    const flash = () => page.locator('[data-testid="flash"]').textContent()

    // One key, revoked: refused at once; the account's other access is untouched.
    const row = page.locator(`tr[data-key-id="${keyId}"]`)
    await change('leaked in a public repository', row.getByRole('button', { name: 'Revoke key' }))
    await expect(flash()).resolves.toContain('The API key is revoked')
    expect((await whoami()).status).toBe(401)
    expect((await bob.goto(`${app.url}/account`))?.status()).toBe(200)

    // A password reset: Bob is signed out, and the reset mail reaches his verified address.
    const address = (
      (await page
        .locator('dt', { hasText: 'Addresses' })
        .locator('xpath=following-sibling::dd[1]')
        .textContent()) ?? ''
    )
      .split(',')[0]
      ?.trim() as string
    expect(address).toContain('@')
    await change('suspected account takeover', page.getByRole('button', { name: 'Require a password reset' }))
    await expect(flash()).resolves.toContain('password-reset mail')
    expect((await bob.goto(`${app.url}/account`))?.status()).toBe(401)
    // Both instances drain the one outbox, each into the mailbox of its own SMTP server: either may send it.
    const mailbox = await admin.newPage()
    const deadline = Date.now() + 20_000
    let mails = 0
    while (mails === 0 && Date.now() < deadline) {
      for (const origin of [app.url, other.url]) {
        await mailbox.goto(`${origin}/dev/mailbox`)
        mails += await mailbox
          .locator('article.mail', { has: mailbox.locator('[data-testid="mail-to"]', { hasText: address }) })
          .filter({ has: mailbox.locator('[data-testid="mail-subject"]', { hasText: /password/i }) })
          .count()
      }
      if (mails === 0) await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect(mails).toBe(1)
    await mailbox.close()

    // Bob is the only owner of an organization with other members: his deletion is refused, nothing changes.
    await page.goto(`${app.url}${accountPath}`)
    await change('erasure request 76', page.getByRole('button', { name: 'Delete account' }))
    await expect(page.locator('main').textContent()).resolves.toContain('account.last_owner')
    await page.goto(`${app.url}${accountPath}`)
    await expect(page.locator('[data-testid="status"]').textContent()).resolves.toBe('active')

    // A fresh account, deleted: back on the search, the account is gone and cannot sign in.
    const dora = await browser.newContext()
    const doraPage = await dora.newPage()
    const username = `dora${Date.now().toString(36)}`
    const password = 'a long enough password for dora'
    await doraPage.goto(`${app.url}/sign-up`)
    await doraPage.fill('input[name="username"]', username)
    await doraPage.fill('input[name="password"]', password)
    await doraPage.getByRole('button', { name: 'Create account' }).click()
    await doraPage.waitForURL(`${app.url}/account`)
    await page.goto(`${app.url}/admin/accounts?q=${username}`)
    await page.locator('[data-testid="hits"]').getByRole('link', { name: username }).click()
    const doraPath = new URL(page.url()).pathname
    await change('erasure request 77', page.getByRole('button', { name: 'Delete account' }))
    await page.waitForURL(`${app.url}/admin/accounts`)
    await expect(flash()).resolves.toContain('The account is deleted')
    expect((await page.goto(`${app.url}${doraPath}`))?.status()).toBe(404)
    expect((await doraPage.goto(`${app.url}/account`))?.status()).toBe(401)
    await doraPage.goto(`${app.url}/sign-in`)
    await doraPage.fill('input[name="username"]', username)
    await doraPage.fill('input[name="password"]', password)
    await doraPage.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expect(doraPage.locator('[role="alert"]').first().isVisible()).resolves.toBe(true)
    expect(new URL(doraPage.url()).pathname).not.toBe('/')
    await dora.close()
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
    for (const action of ['delete', 'password-reset', 'revoke-key:AAAAAAAAAAAAAAAA']) {
      const forged = await page.request.post(`${app.url}${href}`, {
        form: { action, reason: 'forged', password: app.password('alice') },
        headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
        maxRedirects: 0,
      })
      expect(forged.status()).toBe(403)
    }
    await page.goto(`${app.url}${href}`)
    await expect(page.locator('[data-testid="status"]').textContent()).resolves.toBe('active')
  })
})
