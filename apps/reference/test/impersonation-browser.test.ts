import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, launchChromiumBrowser } from './support/chromium.js'
import { authorizationUrl, PUBLIC_CLIENT_REDIRECT, registerPublicClient } from './support/public-client.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * Impersonation in headless Chromium, by clicking: Alice (the demo directory's administrator) starts
 * acting as Bob from his administration page, with her password and a reason; every page shows the banner naming both; Bob's password
 * change is refused with a page that says why (and Bob's password still works); the administration
 * pages are out of reach with Bob's grants; End hands Alice's own session back, and the impersonation
 * session is refused afterwards. Alice (an administrator) cannot be impersonated, a wrong password
 * starts nothing, and a cross-site start is refused.
 */
let app: TestApp
let browser: Browser
let admin: BrowserContext

async function signIn(page: Page, username: string, password: string) {
  await page.goto(`${app.url}/sign-in`)
  await page.fill('input[name="username"]', username)
  await page.fill('input[name="password"]', password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.waitForURL(`${app.url}/`)
}

async function impersonate(page: Page, account: string, reason: string, password: string) {
  await page.goto(`${app.url}/admin/impersonate`)
  await page.fill('input[name="account"]', account)
  await page.fill('input[name="reason"]', reason)
  await page.fill('input[name="password"]', password)
  await page.getByRole('button', { name: 'Impersonate' }).click()
}

const banner = (page: Page) => page.locator('[data-testid="impersonation-banner"]')

const ERIN = 'erin-impersonated'
const ERIN_PASSWORD = 'a long passphrase for erin'
const ERIN_ADDRESS = 'erin@impersonated.example'

/** The link of the newest verification mail to Erin, once `count` arrived (read on `/dev/mailbox`). */
async function verificationLink(on: Page, count: number): Promise<string> {
  const mailbox = await on.context().newPage()
  try {
    const deadline = Date.now() + 20_000
    for (;;) {
      await mailbox.goto(`${app.url}/dev/mailbox`)
      const match = mailbox
        .locator('article.mail', {
          has: mailbox.locator('[data-testid="mail-to"]', { hasText: ERIN_ADDRESS }),
        })
        .filter({
          has: mailbox.locator('[data-testid="mail-subject"]', { hasText: /^Verify your email address/ }),
        })
      if ((await match.count()) >= count) {
        const links = await match
          .first()
          .locator('[data-testid="mail-text"] a[href]')
          .evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href') ?? ''))
        const link = links.find((href) => href.includes('/verify-email?'))
        if (link === undefined) throw new Error('the verification mail has no link')
        return link
      }
      if (Date.now() > deadline) throw new Error(`no ${count} verification mail(s) to ${ERIN_ADDRESS}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  } finally {
    await mailbox.close()
  }
}

describe.skipIf(chromiumPath === undefined)('impersonation, in a browser', () => {
  beforeAll(async () => {
    app = await startTestApp({ authorizationServer: { registration: true } })
    browser = await launchChromiumBrowser()
    admin = await browser.newContext()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('an administrator acts as a person with a reason, is refused a password change, and ends it', async () => {
    const page = await admin.newPage()
    await signIn(page, 'alice', app.password('alice'))
    await expect(banner(page).count()).resolves.toBe(0)

    // A wrong password starts nothing.
    await impersonate(page, 'bob', 'ticket 4711: the invoice page is empty', `${app.password('alice')}-wrong`)
    await page.waitForURL(`${app.url}/admin/impersonate`)
    await expect(page.locator('[data-testid="field-error"]').textContent()).resolves.toContain('wrong')
    // Nor herself (the password was right: the credential is spent on the refused start).
    await impersonate(page, 'alice', 'just looking', app.password('alice'))
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain(
      'Name another account than yours',
    )
    await expect(banner(page).count()).resolves.toBe(0)

    // Started from the administration page of Bob's account, by its Impersonate form.
    await page.goto(`${app.url}/admin/accounts`)
    await page.fill('input[name="q"]', 'bo')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.locator('[data-testid="hits"]').getByRole('link', { name: 'bob' }).click()
    const start = page.getByRole('form', { name: 'Impersonate' })
    await start.locator('input[name="reason"]').fill('ticket 4711: the invoice page is empty')
    await start.locator('input[name="password"]').fill(app.password('alice'))
    await start.getByRole('button', { name: 'Impersonate' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(banner(page).textContent()).resolves.toMatch(
      /You are acting as\s+Bob Baker\s+on behalf of\s+Alice Archer/,
    )
    // The header offers no sign-out of the account: the banner's End is the way back.
    await expect(page.locator('header').getByRole('button', { name: 'Sign out' }).count()).resolves.toBe(0)
    // The banner is on every page, the home page and the events page included.
    for (const path of ['/', '/events', '/account/sessions']) {
      await page.goto(`${app.url}${path}`)
      await expect(banner(page).count(), path).resolves.toBe(1)
    }
    // Readable on a phone: the banner and its button fit 390 px.
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${app.url}/account`)
    await expect(page.evaluate('document.scrollingElement.scrollWidth')).resolves.toBe(390)
    await page.setViewportSize({ width: 1280, height: 800 })
    // Bob's grants, never Alice's: the administrator's pages are refused.
    expect((await page.goto(`${app.url}/admin/impersonate`))?.status()).toBe(403)
    expect((await page.goto(`${app.url}/admin/accounts`))?.status()).toBe(403)

    // A password change, even with Bob's right password, is refused with a page that says why.
    await page.goto(`${app.url}/account/password`)
    await page.fill('input[name="current_password"]', app.password('bob'))
    await page.fill('input[name="new_password"]', 'a brand new passphrase 42')
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.waitForURL(`${app.url}/account/password`)
    await expect(page.locator('[role="alert"]').first().textContent()).resolves.toContain(
      'Refused during an impersonation',
    )
    const impersonationCookies = await admin.cookies(app.url)

    // End: Alice's own session is back, without the banner, and the administrator's page is hers again.
    await page.goto(`${app.url}/account`)
    await banner(page).getByRole('button', { name: 'End impersonation' }).click()
    await page.waitForURL(`${app.url}/admin/impersonate`)
    await expect(banner(page).count()).resolves.toBe(0)
    await expect(page.locator('header .who').textContent()).resolves.toContain('Alice')
    await expect(page.locator('header').getByRole('button', { name: 'Sign out' }).count()).resolves.toBe(1)

    // The ended impersonation's cookies open nothing any more.
    const replay = await browser.newContext()
    await replay.addCookies(impersonationCookies)
    const stale = await replay.newPage()
    expect((await stale.goto(`${app.url}/account`))?.status()).toBe(401)
    await replay.close()

    // Bob's password was never changed: Bob signs in with it.
    const bobContext = await browser.newContext()
    const bob = await bobContext.newPage()
    await signIn(bob, 'bob', app.password('bob'))
    // His recent activity shows the start and the end as acts of the administrator on his account.
    await bob.goto(`${app.url}/account/activity`)
    const activity = (await bob.locator('main').textContent()) ?? ''
    expect(activity).toMatch(/impersonation\.started at \S+, by demo-alice/)
    expect(activity).toMatch(/impersonation\.ended at \S+, by demo-alice/)
    expect(activity).not.toContain('ticket 4711')
    await bobContext.close()
  })

  it('signing out everywhere else from an impersonation ends it, and hands the administrator her own session back', async () => {
    const bobContext = await browser.newContext()
    const bob = await bobContext.newPage()
    await signIn(bob, 'bob', app.password('bob'))
    const context = await browser.newContext()
    const page = await context.newPage()
    await signIn(page, 'alice', app.password('alice'))
    await impersonate(page, 'bob', 'ticket 4712: a stolen phone', app.password('alice'))
    await expect(banner(page).count()).resolves.toBe(1)
    await page.goto(`${app.url}/account/sessions`)
    const impersonationCookies = await context.cookies(app.url)
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click()
    // Where End takes her, told what happened: her own session, not Bob's, and no banner.
    await page.waitForURL(`${app.url}/admin/impersonate`)
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain(
      'the impersonation ended: you are back in your own session',
    )
    await expect(banner(page).count()).resolves.toBe(0)
    await expect(page.locator('header .who').textContent()).resolves.toContain('Alice')
    await expect(page.locator('header').getByRole('button', { name: 'Sign out' }).count()).resolves.toBe(1)
    // Bob's sessions are all gone: his own browser, and the impersonation's cookies replayed.
    expect((await bob.goto(`${app.url}/account`))?.status()).toBe(401)
    const replay = await browser.newContext()
    await replay.addCookies(impersonationCookies)
    expect((await (await replay.newPage()).goto(`${app.url}/account`))?.status()).toBe(401)
    await replay.close()
    await context.close()
    await signIn(bob, 'bob', app.password('bob'))
    // Bob's recent activity shows the sign-out as an act of the administrator on his account.
    await bob.goto(`${app.url}/account/activity`)
    const activity = (await bob.locator('main').textContent()) ?? ''
    expect(activity).toMatch(/epoch\.bumped at \S+, by demo-alice/)
    expect(activity).toContain('Signed out everywhere else, by an administrator acting as you.')
    expect(activity).toMatch(/impersonation\.ended at \S+, by demo-alice/)
    await bobContext.close()
  })

  it('signing out this device from an impersonation ends it as End does', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await signIn(page, 'alice', app.password('alice'))
    await impersonate(page, 'bob', 'ticket 4714: which devices are these', app.password('alice'))
    await page.waitForURL(`${app.url}/account`)
    await page.goto(`${app.url}/account/sessions`)
    await page
      .locator('tr[data-current="true"]')
      .getByRole('button', { name: 'Sign out', exact: true })
      .click()
    await page.waitForURL(`${app.url}/admin/impersonate`)
    await expect(banner(page).count()).resolves.toBe(0)
    await expect(page.locator('header .who').textContent()).resolves.toContain('Alice')
    await context.close()
  })

  it('a cross-site form, an address verification, and the API key, invitation and app connection an impersonation is refused are logged with the administrator', async () => {
    // Erin signs up and adds an address; its code is mailed to her (the mail travels over SMTP).
    const erinContext = await browser.newContext()
    const erin = await erinContext.newPage()
    await erin.goto(`${app.url}/sign-up`)
    await erin.fill('input[name="username"]', ERIN)
    await erin.fill('input[name="password"]', ERIN_PASSWORD)
    await erin.getByRole('button', { name: 'Create account' }).click()
    await erin.waitForURL(`${app.url}/account`)
    await erin.getByRole('link', { name: 'Add an address' }).click()
    await erin.fill('form[aria-label="Add an address"] input[name="email"]', ERIN_ADDRESS)
    await erin.fill('form[aria-label="Add an address"] input[name="password"]', ERIN_PASSWORD)
    await erin.getByRole('button', { name: 'Add the address' }).click()
    await erin.waitForURL(`${app.url}/account`)
    await verificationLink(erin, 1)
    // She runs an organization of her own.
    await erin.goto(`${app.url}/organizations`)
    const create = erin.getByRole('form', { name: 'Create an organization' })
    await create.locator('input[name="name"]').fill('Erin Works')
    await create.locator('input[name="organization_id"]').fill('erin-works')
    await create.getByRole('button', { name: 'Create' }).click()
    await erin.waitForURL(`${app.url}/organizations`)

    // Alice acts as Erin, who reads her the code over the phone; first a new one, from the banner.
    const context = await browser.newContext()
    const page = await context.newPage()
    await signIn(page, 'alice', app.password('alice'))
    await impersonate(page, ERIN, 'ticket 4713: the code never came', app.password('alice'))
    await page.waitForURL(`${app.url}/account`)
    await expect(banner(page).count()).resolves.toBe(1)
    await page
      .locator('[data-testid="verify-banner"]')
      .getByRole('button', { name: 'Send the code again' })
      .click()
    await page.waitForURL(`${app.url}/account`)
    // A form another site sends with the impersonation's cookies is refused.
    const forged = await page.request.post(`${app.url}/keys`, {
      form: { label: 'stolen' },
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      maxRedirects: 0,
    })
    expect(forged.status()).toBe(403)
    // An API key, or an app connected, would outlast the impersonation: both are refused, and say why.
    await page.goto(`${app.url}/keys`)
    await page.fill('input[name="label"]', 'made by support')
    await page.selectOption('select[name="scopes"]', 'reports:read')
    const refusedKey = page.waitForResponse(
      (response) => response.url() === `${app.url}/keys` && response.request().method() === 'POST',
    )
    await page.getByRole('button', { name: 'Issue key' }).click()
    expect((await refusedKey).status()).toBe(403)
    await expect(page.locator('[data-testid="impersonation-refused"]').textContent()).resolves.toContain(
      'Refused during an impersonation',
    )
    await expect(page.locator('[data-testid="issued-key"]').count()).resolves.toBe(0)
    // An invitation to her organization would outlast it too (the administrator could invite themselves).
    await page.goto(`${app.url}/organizations/erin-works`)
    const invite = page.getByRole('form', { name: 'Invite someone' })
    await invite.locator('input[name="email"]').fill('support@impersonated.example')
    await invite.getByRole('button', { name: 'Send the invitation' }).click()
    await page.waitForURL(`${app.url}/organizations/erin-works`)
    // The refusal is said at the form's address field.
    await expect(invite.textContent()).resolves.toContain('Refused during an impersonation')
    await expect(page.locator('tr[data-invitation]').count()).resolves.toBe(0)
    const clientId = await registerPublicClient(app.url, 'Support test agent')
    await page.goto(authorizationUrl(app.url, clientId, 'impersonated'))
    await page.waitForSelector('[data-impersonation-refused]')
    await expect(page.getByRole('button', { name: /allow/i }).count()).resolves.toBe(0)
    const denied = page.waitForRequest((request) => request.url().startsWith(PUBLIC_CLIENT_REDIRECT))
    await page.getByRole('button', { name: 'Deny' }).click()
    const deniedUrl = new URL((await denied).url())
    expect(deniedUrl.searchParams.get('error')).toBe('access_denied')
    expect(deniedUrl.searchParams.get('code')).toBeNull()
    await page.goto(await verificationLink(erin, 2))
    await page.getByRole('button', { name: 'Verify the address' }).click()
    await expect(page.locator('[data-testid="verified"]').textContent()).resolves.toContain(
      'The address is verified.',
    )
    await page.goto(`${app.url}/account`)
    await banner(page).getByRole('button', { name: 'End impersonation' }).click()
    await page.waitForURL(`${app.url}/admin/impersonate`)
    await context.close()

    // Erin's recent activity: the verification and the refused form, each naming the administrator.
    await erin.goto(`${app.url}/account/activity`)
    const items = erin.locator('li[data-activity]')
    const itemOf = (type: string) => items.filter({ has: erin.locator('code', { hasText: type }) })
    await expect(itemOf('email.verified').count()).resolves.toBe(1)
    await expect(itemOf('email.verified').textContent()).resolves.toMatch(
      /An email address changed, by an administrator acting as you\.[\s\S]*email\.verified at \S+, by demo-alice/,
    )
    await expect(itemOf('csrf.refused').count()).resolves.toBe(1)
    await expect(itemOf('csrf.refused').textContent()).resolves.toMatch(
      /A form sent from another site, while an administrator was acting as you, was refused\. Nothing changed\.[\s\S]*csrf\.refused at \S+, by demo-alice/,
    )
    // The refused key, invitation and connection, each naming the administrator; nothing was made.
    await expect(itemOf('impersonation.refused').count()).resolves.toBe(3)
    for (const item of await itemOf('impersonation.refused').all()) {
      await expect(item.textContent()).resolves.toMatch(
        /An administrator acting as you was refused something that would outlast the impersonation[\s\S]*impersonation\.refused at \S+, by demo-alice/,
      )
    }
    await expect(itemOf('api_key.issued').count()).resolves.toBe(0)
    await expect(itemOf('oauth.client_connected').count()).resolves.toBe(0)
    // Her own address addition names nobody.
    await expect(itemOf('email.address_added').textContent()).resolves.not.toContain('by demo-alice')
    await erin.goto(`${app.url}/keys`)
    await expect(erin.locator('main').textContent()).resolves.not.toContain('made by support')
    await erinContext.close()
  })

  it('refuses a cross-site start, and a start without the capability', async () => {
    const page = await admin.newPage()
    await page.goto(`${app.url}/admin/impersonate`)
    const forged = await page.request.post(`${app.url}/admin/impersonate`, {
      form: { account: 'carol', reason: 'forged', password: app.password('alice') },
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      maxRedirects: 0,
    })
    expect(forged.status()).toBe(403)
    await page.goto(`${app.url}/account`)
    await expect(banner(page).count()).resolves.toBe(0)
    // End outside an impersonation is a conflict, and the administrator's own session goes on.
    const notImpersonating = await page.request.post(`${app.url}/admin/impersonate/end`, {
      form: {},
      headers: { origin: app.url },
      maxRedirects: 0,
    })
    expect(notImpersonating.status()).toBe(409)
    expect((await page.goto(`${app.url}/admin/impersonate`))?.status()).toBe(200)

    // Carol holds no administrator role: the page and the start are 403 for her.
    const carolContext = await browser.newContext()
    const carol = await carolContext.newPage()
    await signIn(carol, 'carol', app.password('carol'))
    expect((await carol.goto(`${app.url}/admin/impersonate`))?.status()).toBe(403)
    const refused = await carol.request.post(`${app.url}/admin/impersonate`, {
      form: { account: 'bob', reason: 'curious', password: app.password('carol') },
      headers: { origin: app.url },
      maxRedirects: 0,
    })
    expect(refused.status()).toBe(403)
    await carolContext.close()
  })
})
