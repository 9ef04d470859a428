import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, chromiumPath, launchChromium, screenshotFolder } from './support/chromium.js'
import { settledMailsTo } from './support/mailbox.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The pages in headless Chromium (Debian's chromium, driven by playwright-core), as a person uses them,
 * without JavaScript on the pages. Screenshots of each step go to docs/images/ for the tour in
 * docs/reference-app.md.
 */
let images = ''
let app: TestApp
let browser: Browser
let page: Page

/** The text a person reads in `locator`, leaving out folded details (the developers' codes). */
const readable = (locator: Locator) =>
  locator.evaluate((element) => {
    const copy = element.cloneNode(true) as typeof element
    for (const folded of copy.querySelectorAll('details')) folded.remove()
    return (copy.textContent ?? '').replace(/\s+/g, ' ')
  })
/** The text of an element as a person reads it (whitespace collapsed). */
const words = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim()
const shot = (name: string) =>
  page.screenshot({ path: join(images, `reference-${name}.png`), fullPage: true })
const whoami = (key: string) => fetch(`${app.url}/api/whoami`, { headers: { 'x-api-key': key } })
const keyRow = (keyId: string) => page.locator(`tr[data-key-id="${keyId}"]`)
/** `demo_<16-character key id>_<43-character secret>` (both base64url, so they may contain `_`). */
const keyIdOf = (key: string) => key.slice('demo_'.length, 'demo_'.length + 16)

describe.skipIf(chromiumPath === undefined)('the reference app in a browser', () => {
  beforeAll(async () => {
    images = await screenshotFolder()
    app = await startTestApp()
    browser = await launchChromium()
    page = await browser.context.newPage()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('home, then sign in as a demo user with a password', async () => {
    await page.goto(`${app.url}/`)
    await expect(page.locator('h1').textContent()).resolves.toBe('Portcullis reference app')
    await shot('home')
    await page.getByRole('link', { name: 'Sign in', exact: true }).first().click()
    await page.waitForURL(/\/sign-in/)
    await page.fill('input[name="username"]', 'alice')
    await page.fill('input[name="password"]', 'not the password')
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expect(page.locator('[role="alert"]').textContent()).resolves.toContain(
      'Wrong username or password',
    )
    await shot('sign-in')
    await page.fill('input[name="password"]', app.password('alice'))
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForURL(`${app.url}/`)
    await expect(page.locator('.account .who').textContent()).resolves.toContain('Alice Archer')
  })

  let first = ''
  let replacement = ''

  it('issues an API key and shows it exactly once, with a copy button; a reload issues nothing', async () => {
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url })
    await page.goto(`${app.url}/keys`)
    await page.fill('input[name="label"]', 'nightly export')
    await page.selectOption('select[name="scopes"]', 'reports:read')
    await page.getByRole('button', { name: 'Issue key' }).click()
    // POST/redirect/GET: the address bar holds /keys, not the form's POST.
    await page.waitForURL(`${app.url}/keys`)
    first = (await page.locator('[data-testid="issued-key"]').textContent()) ?? ''
    expect(first).toMatch(/^demo_[A-Za-z0-9_-]{16}_[A-Za-z0-9_-]{43}$/)
    await page.getByRole('button', { name: 'Copy the key' }).click()
    await page.getByRole('button', { name: 'Copied' }).waitFor()
    expect(String(await page.evaluate('navigator.clipboard.readText()'))).toBe(first)
    await shot('api-key-issued')
    const response = await whoami(first)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ principal: { id: 'demo-alice' }, scopes: ['reports:read'] })
    // A reload neither issues a second key nor shows this one again.
    await page.reload()
    expect(await page.content()).not.toContain(first)
    expect(await page.content()).not.toContain(first.slice(-43))
    await expect(page.locator('tr[data-key-id]', { hasText: 'nightly export' }).count()).resolves.toBe(1)
    // What the key may do, in words (the scope's name only in the title, for developers).
    await expect(words(keyRow(keyIdOf(first)).locator('td[data-label="May use"]'))).resolves.toBe(
      'only read reports',
    )
    await expect(
      keyRow(keyIdOf(first)).locator('[data-testid="status"]').getAttribute('data-status'),
    ).resolves.toBe('active')
  })

  it('replaces the key with an overlap: both keys work until the overlap ends', async () => {
    await keyRow(keyIdOf(first)).locator('select[name="overlap"]').selectOption('3600')
    await keyRow(keyIdOf(first)).getByRole('button', { name: 'Replace' }).click()
    await page.waitForURL(`${app.url}/keys`)
    replacement = (await page.locator('[data-testid="issued-key"]').textContent()) ?? ''
    expect(replacement).toMatch(/^demo_/)
    expect(replacement).not.toBe(first)
    await expect(
      keyRow(keyIdOf(first)).locator('[data-testid="status"]').getAttribute('data-status'),
    ).resolves.toBe('overlap')
    await expect(words(keyRow(keyIdOf(first)).locator('[data-testid="status"]'))).resolves.toBe(
      'being replaced',
    )
    await shot('api-key-rotated')
    expect((await whoami(first)).status).toBe(200)
    expect((await whoami(replacement)).status).toBe(200)
  })

  it('revokes the key in its overlap after a confirmation; Cancel revokes nothing', async () => {
    // Cancel on the confirmation page: nothing changes.
    await keyRow(keyIdOf(first)).getByRole('link', { name: 'Revoke' }).click()
    await expect(page.locator('h1').textContent()).resolves.toBe('Revoke the key?')
    await expect(words(page.locator('main'))).resolves.toContain('nightly export')
    await page.getByRole('link', { name: 'Cancel' }).click()
    await page.waitForURL(`${app.url}/keys`)
    expect((await whoami(first)).status).toBe(200)
    // Confirmed: refused at once.
    await keyRow(keyIdOf(first)).getByRole('link', { name: 'Revoke' }).click()
    await page.getByRole('button', { name: 'Revoke the key' }).click()
    await page.waitForURL(`${app.url}/keys`)
    await expect(page.locator('[role="status"]').first().textContent()).resolves.toContain('is revoked')
    await expect(
      keyRow(keyIdOf(first)).locator('[data-testid="status"]').getAttribute('data-status'),
    ).resolves.toBe('revoked')
    expect((await whoami(first)).status).toBe(401)
    expect((await whoami(replacement)).status).toBe(200)
  })

  it('revokes the replacement: refused at once, with no revoke button left', async () => {
    await keyRow(keyIdOf(replacement)).getByRole('link', { name: 'Revoke' }).click()
    await page.getByRole('button', { name: 'Revoke the key' }).click()
    await page.waitForURL(`${app.url}/keys`)
    await expect(
      keyRow(keyIdOf(replacement)).locator('[data-testid="status"]').getAttribute('data-status'),
    ).resolves.toBe('revoked')
    await expect(keyRow(keyIdOf(replacement)).getByRole('link', { name: 'Revoke' }).count()).resolves.toBe(0)
    await expect(keyRow(keyIdOf(replacement)).getByRole('button').count()).resolves.toBe(0)
    await shot('api-keys')
    expect((await whoami(replacement)).status).toBe(401)
    // The revocation of an already revoked key is refused (no second revoke event).
    await page.goto(`${app.url}/keys/${keyIdOf(replacement)}/revoke`)
    await page.waitForURL(`${app.url}/keys`)
    await expect(page.locator('[role="alert"]').textContent()).resolves.toContain('already revoked')
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

  it('a form posted from another origin is refused, and nothing is changed', async () => {
    const attacker: Server = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html')
      response.end(`<form method="post" action="${app.url}/keys"><input name="label" value="stolen">
        <button type="submit">Win a prize</button></form>
        <form method="post" action="${app.url}/sign-in"><input name="username" value="alice">
        <input name="password" value="guess"><button type="submit">Win another prize</button></form>`)
    })
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve))
    try {
      await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`)
      const [answer] = await Promise.all([
        page.waitForResponse(`${app.url}/keys`),
        page.getByRole('button', { name: 'Win a prize' }).click(),
      ])
      expect(answer.status()).toBe(403)
      // Said in words, the code folded away for developers. (The refusal page reads no session: it is
      // answered before any route runs.)
      await expect(page.locator('h1').textContent()).resolves.toBe('The form could not be verified')
      await expect(page.locator('details.developer code').textContent()).resolves.toBe('local.csrf_refused')
      await page.goBack()
      const [signIn] = await Promise.all([
        page.waitForResponse(`${app.url}/sign-in`),
        page.getByRole('button', { name: 'Win another prize' }).click(),
      ])
      expect(signIn.status()).toBe(403)
      await expect(page.locator('h1').textContent()).resolves.toBe('The form could not be verified')
      await expect(page.locator('details.developer code').textContent()).resolves.toBe('local.csrf_refused')
    } finally {
      attacker.closeAllConnections()
      await new Promise((resolve) => attacker.close(resolve))
    }
    await page.goto(`${app.url}/keys`)
    expect(await page.content()).not.toContain('stolen')
  })

  it('the security events page shows the account’s own events, in words (the codes folded away)', async () => {
    await page.goto(`${app.url}/events`)
    const list = page.locator('[data-testid="events"]')
    // What a person reads: one sentence per event, no event names or field names.
    const sentences = await list.locator('li[data-event] .sentence').allTextContents()
    const read = sentences.join('\n')
    for (const sentence of [
      'You signed in with your password.',
      'A new session started',
      'You made a new API key.',
      'You replaced an API key with a new one.',
      'You revoked an API key: it no longer works.',
    ]) {
      expect(read).toContain(sentence)
    }
    expect(read).not.toMatch(/\b(login|session|api_key|csrf)\.[a-z_]+\b/)
    expect(read).not.toMatch(/keyId|sessionHandle|clientAddress/)
    // The codes are there for developers, folded away in a details element each.
    const details = list.locator('details.developer')
    await expect(details.first().isVisible()).resolves.toBe(true)
    await expect(details.first().locator('code').first().isVisible()).resolves.toBe(false)
    expect(await list.locator('details.developer code').allTextContents()).toContain('api_key.issued')
    // The form from the other origin above carried her session cookie (another port of 127.0.0.1 is the
    // same site): its refusal is hers, in words. Nobody else's events, nor the site's.
    expect(read).toContain('A form sent to this app from another site, in your name, was refused.')
    await expect(page.locator('[data-testid="refusals"]').count()).resolves.toBe(0)
    expect(await page.content()).not.toContain(first)
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
    // The IdP remembers bob's login (its cookies share the 127.0.0.1 host with the app's): forget it, so
    // the next login at the IdP asks again.
    await browser.context.clearCookies({ name: /^_(session|interaction)/ })
  })

  /** Finishes a login at the demo IdP as `username`, authenticated `authAge` seconds ago. */
  const idpLogin = async (username: string, authAge = '0') => {
    await page.waitForURL(/\/interaction\//)
    await page.check(`input[name="username"][value="${username}"]`)
    await page.selectOption('select[name="auth_age"]', authAge)
    await page.getByRole('button', { name: 'Sign in' }).click()
  }
  /** The other device's browser, as the account page names it: "Firefox 140 on Linux". */
  const OTHER_DEVICE = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0'
  /** A session of alice's made over plain HTTP (another device), as its cookie. */
  const otherDevice = async (password: string) => {
    const response = await fetch(`${app.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        origin: app.url,
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': OTHER_DEVICE,
      },
      body: `username=alice&password=${encodeURIComponent(password)}`,
    })
    const line = response.headers.getSetCookie().find((value) => value.startsWith('portcullis-session='))
    return { status: response.status, cookie: line?.split(';')[0] ?? '' }
  }
  const statusWith = async (cookie: string) =>
    (await fetch(`${app.url}/keys`, { headers: { cookie, accept: 'text/html' }, redirect: 'manual' })).status

  it("the account lists alice's demo IdP identity from the start, and asks no password before an action", async () => {
    await page.goto(`${app.url}/account`)
    await expect(page.locator('[data-testid="username"]').textContent()).resolves.toBe('alice')
    const links = (await page.locator('[data-testid="links"]').textContent()) ?? ''
    expect(links).toContain('Demo identity provider')
    // Issuer and subject are for developers: folded away.
    expect(links).toContain(app.running.idpUrl ?? 'issuer')
    expect(links).toContain('alice')
    await expect(
      page.locator('[data-testid="links"] details.developer code').first().isVisible(),
    ).resolves.toBe(false)
    // Nothing is asked before the person chooses an action.
    await expect(page.locator('input[type="password"]').count()).resolves.toBe(0)
    // What a person reads (the folded details left out): no protocol terms.
    const read = await readable(page.locator('main'))
    for (const term of ['step-up', 'Issuer', 'Subject', 'RFC 6238', 'base32', 'TOTP', 'credential']) {
      expect(read).not.toContain(term)
    }
    // The account page at 1280 px and on a 390 px phone, for docs/reference-app.md.
    await page.setViewportSize({ width: 1280, height: 800 })
    await shot('account')
    await page.setViewportSize({ width: 390, height: 844 })
    await shot('account-phone')
    await page.setViewportSize({ width: 1200, height: 800 })
  })

  it('a confirmation already spent says so, under the signed-in header', async () => {
    await page.goto(`${app.url}/account`)
    await page.locator('[data-testid="links"]').getByRole('link', { name: 'Unlink' }).click()
    await page.fill('input[name="password"]', app.password('alice'))
    await page.getByRole('button', { name: 'Unlink the demo identity provider' }).click()
    await page.waitForURL(new RegExp(`^${app.url}/account/unlink/demo/[^/?]+$`))
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain('Confirmed')
    // The confirmation is gone (spent elsewhere, or expired): the provider's route refuses the unlink.
    await browser.context.clearCookies({ name: /^portcullis-step-up/ })
    const [refused] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/unlink')),
      page.getByRole('button', { name: 'Unlink', exact: true }).click(),
    ])
    expect(refused.status()).toBe(401)
    await expect(page.locator('h1').textContent()).resolves.toBe('Confirm again')
    await expect(page.locator('.account .who').textContent()).resolves.toBe('Alice Archer')
    await expect(page.locator('header').getByRole('link', { name: 'Sign in' }).count()).resolves.toBe(0)
    expect(await readable(page.locator('main'))).not.toContain('Sign in required')
    await expect(page.locator('details.developer code').textContent()).resolves.toMatch(/step[-_]up/)
    // Nothing was unlinked.
    await page.goto(`${app.url}/account`)
    await expect(page.locator('[data-testid="links"] tbody tr').count()).resolves.toBe(1)
  })

  it('the sign-in, sign-up and error pages show who is signed in', async () => {
    for (const path of ['/sign-in', '/sign-up', '/nowhere', '/account/confirm/nothing']) {
      await page.goto(`${app.url}${path}`)
      await expect(page.locator('.account .who').textContent()).resolves.toBe('Alice Archer')
      await expect(page.locator('header').getByRole('link', { name: 'Sign in' }).count()).resolves.toBe(0)
      await expect(page.locator('header').getByRole('link', { name: 'Sign up' }).count()).resolves.toBe(0)
    }
    await page.goto(`${app.url}/sign-in`)
    await expect(words(page.locator('[data-testid="signed-in-as"]'))).resolves.toContain(
      'You are signed in as Alice Archer',
    )
  })

  it('revokes another session from the account page', async () => {
    const other = await otherDevice(app.password('alice'))
    expect(other.status).toBe(303)
    expect(await statusWith(other.cookie)).toBe(200)
    await page.goto(`${app.url}/account`)
    const row = page.locator('[data-testid="sessions"] tr', { hasText: 'Firefox 140 on Linux' })
    // Times and browsers as people read them: "just now" (the exact time on hover), not ISO strings.
    await expect(row.locator('time').first().textContent()).resolves.toBe('just now')
    await expect(row.locator('time').first().getAttribute('title')).resolves.toMatch(/UTC$/)
    await row.getByRole('button', { name: 'Revoke' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain('Session revoked')
    await expect(
      page.locator('[data-testid="sessions"] tr', { hasText: 'Firefox 140 on Linux' }).count(),
    ).resolves.toBe(0)
    expect(await statusWith(other.cookie)).toBe(401)
    // The notice was for one page: a reload shows it no more.
    await page.reload()
    await expect(page.locator('[data-testid="flash"]').count()).resolves.toBe(0)
  })

  it('changes the password: a wrong one is said beside the field; other sessions end', async () => {
    const other = await otherDevice(app.password('alice'))
    await page.goto(`${app.url}/account`)
    await page.locator('[data-testid="methods"]').getByRole('link', { name: 'Change' }).click()
    await page.waitForURL(`${app.url}/account/password`)
    const form = page.locator('form[aria-label="Change password"]')
    await form.locator('input[name="current_password"]').fill('wrong password')
    await form.locator('input[name="new_password"]').fill('a brand new passphrase')
    await form.getByRole('button', { name: 'Change password' }).click()
    // Redirected back to the form (no POST in the address bar), the error beside the field it concerns.
    await page.waitForURL(`${app.url}/account/password`)
    const error = page.locator('#current_password-error')
    await expect(error.textContent()).resolves.toContain('The current password is wrong.')
    await expect(form.locator('input[name="current_password"]').getAttribute('aria-invalid')).resolves.toBe(
      'true',
    )
    const field = await form.locator('input[name="current_password"]').boundingBox()
    const said = await error.boundingBox()
    expect(Math.abs((said?.y ?? 9999) - (field?.y ?? 0))).toBeLessThan(120)
    // A common new password is refused by the screen, said beside the new password, and changes nothing.
    await form.locator('input[name="current_password"]').fill(app.password('alice'))
    await form.locator('input[name="new_password"]').fill('Password123')
    await form.getByRole('button', { name: 'Change password' }).click()
    await page.waitForURL(`${app.url}/account/password`)
    await expect(page.locator('#new_password-error').textContent()).resolves.toContain(
      'Choose a password that is not common',
    )
    await expect(page.content()).resolves.not.toContain('Password123')
    await form.locator('input[name="current_password"]').fill(app.password('alice'))
    await form.locator('input[name="new_password"]').fill('a brand new passphrase')
    await form.getByRole('button', { name: 'Change password' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain('Password changed')
    expect(await statusWith(other.cookie)).toBe(401)
    expect((await otherDevice(app.password('alice'))).status).toBe(401)
    expect((await otherDevice('a brand new passphrase')).status).toBe(303)
    expect((await page.goto(`${app.url}/keys`))?.status()).toBe(200)
  })

  it('signs in with the demo IdP into the linked account', async () => {
    await page.goto(`${app.url}/`)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${app.url}/`)
    await page.goto(`${app.url}/sign-in`)
    await page.getByRole('link', { name: 'Sign in with the demo IdP' }).click()
    // The IdP may remember alice's login there; otherwise it asks.
    await page.waitForURL((url) => url.pathname.startsWith('/interaction/') || url.href === `${app.url}/`)
    if (page.url().includes('/interaction/')) await idpLogin('alice')
    await page.waitForURL(`${app.url}/`)
    await expect(page.locator('.account .who').textContent()).resolves.toContain('Alice Archer')
  })

  it('unlinks the demo IdP: chosen on the account page, confirmed with the password beside it', async () => {
    await page.goto(`${app.url}/account`)
    await page.locator('[data-testid="links"]').getByRole('link', { name: 'Unlink' }).click()
    await page.waitForURL(new RegExp(`^${app.url}/account/confirm/oauth-unlink\\?provider=demo&id=`))
    const confirmUrl = page.url()
    await page.fill('input[name="password"]', 'wrong password')
    await page.getByRole('button', { name: 'Unlink the demo identity provider' }).click()
    await page.waitForURL(confirmUrl)
    await expect(page.locator('[data-testid="field-error"]').textContent()).resolves.toBe(
      'That password is wrong.',
    )
    await shot('confirm-wrong-password')
    // The password was changed above.
    await page.fill('input[name="password"]', 'a brand new passphrase')
    await page.getByRole('button', { name: 'Unlink the demo identity provider' }).click()
    await page.waitForURL(new RegExp(`^${app.url}/account/unlink/demo/[^/?]+$`))
    const [unlinked] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/unlink')),
      page.getByRole('button', { name: 'Unlink', exact: true }).click(),
    ])
    // A browser form post is sent back to the account page (303), where the link is gone, and said so.
    expect(unlinked.status()).toBe(303)
    await page.waitForURL(`${app.url}/account`)
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain('unlinked')
    await expect(page.locator('[data-testid="links"] tbody tr').count()).resolves.toBe(0)
    await page.goto(`${app.url}/events`)
    await expect(words(page.locator('[data-testid="events"]'))).resolves.toContain(
      'You unlinked the demo identity provider',
    )
    // One notification, written with the unlink in its transaction (none again after commit).
    const notices = await settledMailsTo(page, app, {
      to: 'alice@demo.portcullis.invalid',
      accountId: 'demo-alice',
      subject: /^A demo sign-in was unlinked$/,
    })
    await expect(notices.count()).resolves.toBe(1)
  })

  it('links the demo IdP again: password on the confirmation page, then a login at the IdP', async () => {
    await page.goto(`${app.url}/account`)
    await page.getByRole('link', { name: 'Link the demo identity provider' }).click()
    await page.fill('input[name="password"]', 'a brand new passphrase')
    await page.getByRole('button', { name: 'Link the demo identity provider' }).click()
    await page.waitForURL(`${app.url}/account/link/demo`)
    await page.getByRole('button', { name: 'Continue to the demo IdP' }).click()
    await idpLogin('alice')
    await page.waitForURL(`${app.url}/account`, { waitUntil: 'commit' })
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain('is linked')
    const links = (await page.locator('[data-testid="links"]').textContent()) ?? ''
    expect(links).toContain('Demo identity provider')
    expect(links).toContain('alice')
    const events = await (await page.goto(`${app.url}/events`))?.text()
    expect(events).toContain('oauth.linked')
    const notices = await settledMailsTo(page, app, {
      to: 'alice@demo.portcullis.invalid',
      accountId: 'demo-alice',
      subject: /^A demo sign-in was linked$/,
    })
    await expect(notices.count()).resolves.toBe(1)
  })

  it('signs up a new account, which has no tenant grants', async () => {
    await page.goto(`${app.url}/`)
    if (await page.getByRole('button', { name: 'Sign out' }).isVisible()) {
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL(`${app.url}/`)
    }
    await page.getByRole('link', { name: 'Sign up' }).click()
    await page.fill('input[name="username"]', 'Alice')
    await page.fill('input[name="password"]', 'a long enough password')
    await page.getByRole('button', { name: 'Create account' }).click()
    await expect(page.locator('[role="alert"]').textContent()).resolves.toContain('taken')
    // The name with a few digits is refused by the password screen, and the page says so (400).
    await page.fill('input[name="username"]', 'dave')
    await page.fill('input[name="password"]', 'Dave2024!')
    const [screened] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create account' }).click(),
    ])
    expect(screened.status()).toBe(400)
    await expect(page.locator('[role="alert"]').textContent()).resolves.toContain(
      'Choose a password that is not common',
    )
    await page.fill('input[name="username"]', 'dave')
    await page.fill('input[name="password"]', 'dave has a long password')
    await shot('sign-up')
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(page.locator('[data-testid="username"]').textContent()).resolves.toBe('dave')
    // The header names the account by its username, never by its account id.
    await expect(page.locator('.account .who').textContent()).resolves.toBe('dave')
    // A signed-in visitor is never told an account was deleted.
    await page.goto(`${app.url}/?deleted=1`)
    await expect(page.locator('.account .who').textContent()).resolves.toBe('dave')
    await expect(page.locator('[data-testid="deleted"]').count()).resolves.toBe(0)
    await page.goto(`${app.url}/tenants`)
    await expect(page.locator('[data-testid="memberships"] tbody tr').count()).resolves.toBe(0)
    expect((await page.goto(`${app.url}/tenants/acme`))?.status()).toBe(403)
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

  it('deletes the account with its password: signed out, and the password signs in no more', async () => {
    await page.goto(`${app.url}/sign-in`)
    await page.fill('input[name="username"]', 'dave')
    await page.fill('input[name="password"]', 'dave has a long password')
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForURL((url) => !url.pathname.startsWith('/sign-in'))
    await page.goto(`${app.url}/account`)
    await page.getByRole('link', { name: 'Delete the account…' }).click()
    await page.waitForURL(`${app.url}/account/confirm/delete-account`)
    const remove = page.locator('form[aria-label="Delete the account"]')
    await remove.locator('input[name="password"]').fill('dave has a long password')
    await remove.getByRole('button', { name: 'Delete the account' }).click()
    await page.waitForURL(`${app.url}/?deleted=1`)
    // The home page confirms it, and shows it signed out.
    await expect(words(page.locator('[data-testid="deleted"]'))).resolves.toContain(
      'Your account was deleted',
    )
    await expect(page.getByRole('link', { name: 'Sign in', exact: true }).first().isVisible()).resolves.toBe(
      true,
    )
    await shot('account-deleted')
    expect((await page.goto(`${app.url}/account`))?.status()).toBe(401)
    const signIn = await fetch(`${app.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: app.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=dave&password=${encodeURIComponent('dave has a long password')}`,
    })
    expect(signIn.status).toBe(401)
    const events = await (await fetch(`${app.url}/events`)).text()
    expect(events).not.toContain('dave')
  })

  it('signs up with the demo IdP, adds a password after a fresh IdP login (step 2 only after step 1), then deletes the account', async () => {
    await browser.context.clearCookies({ name: /^_(session|interaction)/ })
    await page.goto(`${app.url}/sign-in`)
    await page.getByRole('link', { name: 'Sign in with the demo IdP' }).click()
    await idpLogin('dana')
    await page.waitForURL(`${app.url}/`)
    // No password: the header names the account by the email the provider gave, not its account id.
    await expect(page.locator('.account .who').textContent()).resolves.toBe('dana@demo.portcullis.invalid')
    await page.goto(`${app.url}/account`)
    // A new account (dana is new to the app): the IdP identity is its one sign-in method.
    await expect(page.locator('[data-testid="links"] tbody tr').count()).resolves.toBe(1)
    await expect(page.locator('[data-testid="methods"]').textContent()).resolves.toContain('none')
    await page.getByRole('link', { name: 'Add a password' }).click()
    await page.waitForURL(`${app.url}/account/confirm/password-add`)
    // Step 2 waits for step 1.
    await expect(page.locator('[data-step="2"] fieldset').getAttribute('disabled')).resolves.not.toBeNull()
    await expect(page.getByRole('button', { name: 'Add a password' }).isDisabled()).resolves.toBe(true)
    // A login at the IdP from 15 minutes ago does not confirm it: said as it is, under dana's header.
    await page.getByRole('button', { name: 'Confirm at the demo IdP' }).click()
    await idpLogin('dana', '900')
    await page.waitForURL(new RegExp(`^${app.url}/auth/oauth/demo/callback`))
    await expect(page.locator('h1').textContent()).resolves.toBe(
      'The identity provider did not confirm it just now',
    )
    expect(await readable(page.locator('main'))).not.toContain('tenant')
    await expect(page.locator('.account .who').textContent()).resolves.toBe('dana@demo.portcullis.invalid')
    // A fresh login: step 1 done, step 2 enabled.
    await page.goto(`${app.url}/account/confirm/password-add`)
    await page.getByRole('button', { name: 'Confirm at the demo IdP' }).click()
    await idpLogin('dana')
    await page.waitForURL(`${app.url}/account/confirm/password-add`)
    await expect(page.locator('[data-testid="step-1-done"]').isVisible()).resolves.toBe(true)
    const add = page.locator('form[aria-label="Add a password"]')
    await add.locator('input[name="username"]').fill('dana-by-idp')
    await add.locator('input[name="new_password"]').fill('dana picked a long password')
    await add.getByRole('button', { name: 'Add a password' }).click()
    await page.waitForURL(`${app.url}/account`)
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain('Password added')
    await expect(page.locator('[data-testid="username"]').textContent()).resolves.toBe('dana-by-idp')
    await expect(page.locator('.account .who').textContent()).resolves.toBe('dana-by-idp')
    await shot('account-methods')
    await page.getByRole('link', { name: 'Delete the account…' }).click()
    const remove = page.locator('form[aria-label="Delete the account"]')
    await remove.locator('input[name="password"]').fill('dana picked a long password')
    await remove.getByRole('button', { name: 'Delete the account' }).click()
    await page.waitForURL(`${app.url}/?deleted=1`)
    const events = await (await page.goto(`${app.url}/events`))?.text()
    expect(events).not.toContain('dana-by-idp')
  })
})
