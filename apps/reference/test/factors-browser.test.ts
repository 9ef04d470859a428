import { join } from 'node:path'
import { Secret, TOTP } from 'otpauth'
import type { CDPSession, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, chromiumPath, screenshotFolder } from './support/chromium.js'
import { addVirtualAuthenticator, startPasskeyBrowser } from './support/passkey-browser.js'
import type { TestApp } from './support/reference-app.js'

/**
 * Passkeys and one-time codes in headless Chromium: a virtual authenticator of the DevTools WebAuthn
 * domain (CTAP2, platform, resident keys, user verification) stands in for the person's device, and the
 * TOTP codes are computed from the key the enrollment page shows. The pages run on `localhost` (WebAuthn
 * needs a host name; `http://localhost` is a secure context).
 */
let images = ''
const PASSWORD = 'correct horse battery staple'
let app: TestApp
let browser: Browser
let page: Page
let cdp: CDPSession
let authenticatorId = ''
let base = ''

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
const credentials = async () =>
  (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as readonly {
    readonly isResidentCredential: boolean
  }[]
const alert = () => page.locator('[role="alert"], [role="status"]').first().textContent()

/** A JSON request of an API client (same-origin, as `/auth/login`'s CSRF check wants). */
const post = (path: string, body: unknown) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base, 'sec-fetch-site': 'same-origin' },
    body: JSON.stringify(body),
  })

async function signUp(username: string) {
  await page.goto(`${base}/sign-up`)
  await page.fill('input[name="username"]', username)
  await page.fill('input[name="password"]', PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.waitForURL(`${base}/account`)
}

async function signOut() {
  await page.getByRole('button', { name: 'Sign out', exact: true }).click()
  await page.waitForURL(`${base}/`)
  expect((await page.goto(`${base}/account`))?.status()).toBe(401)
}

async function signInWithPassword(username: string) {
  await page.goto(`${base}/sign-in`)
  await page.fill('form[aria-label="Sign in with a password"] input[name="username"]', username)
  await page.fill('form[aria-label="Sign in with a password"] input[name="password"]', PASSWORD)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
}

describe.skipIf(chromiumPath === undefined)('passkeys and one-time codes in a browser', () => {
  beforeAll(async () => {
    images = await screenshotFolder()
    ;({ app, browser, page, cdp, base } = await startPasskeyBrowser())
    authenticatorId = await addVirtualAuthenticator(cdp)
    await page.addInitScript({
      content:
        "if (sessionStorage.getItem('no-conditional-ui') !== null) PublicKeyCredential.isConditionalMediationAvailable = async () => false",
    })
  })
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('names a signed-up account by its username in the header, never by its account id', async () => {
    await signUp('pia')
    await expect(page.locator('.account .who').textContent()).resolves.toBe('pia')
    await page.goto(`${base}/keys`)
    await expect(page.locator('.account .who').textContent()).resolves.toBe('pia')
    await page.goto(`${base}/account`)
  })

  it('adds a passkey after the password step-up, then renames it', async () => {
    // The account page asks no password: the action is chosen there, confirmed on its own page.
    await expect(page.locator('input[type="password"]').count()).resolves.toBe(0)
    await page.getByRole('link', { name: 'Add a passkey' }).click()
    await page.waitForURL(`${base}/account/confirm/passkey-register`)
    const add = page.locator('form[aria-label="Add a passkey"]')
    await add.locator('input[name="password"]').fill('not the password')
    await add.getByRole('button', { name: 'Add a passkey' }).click()
    await page.waitForURL(`${base}/account/confirm/passkey-register`)
    await expect(page.locator('#password-error').textContent()).resolves.toBe('That password is wrong.')
    await page.locator('form[aria-label="Add a passkey"] input[name="password"]').fill(PASSWORD)
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await page.waitForURL(`${base}/account/passkeys/new`)
    await page.waitForSelector('[data-passkey-register]')
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain('Confirmed')
    // What to do next in plain words, not how the confirmation is carried.
    const next = await words(page.locator('main'))
    expect(next).toContain('within five minutes, in this browser')
    expect(next).toContain('confirm again')
    expect(next).not.toContain('SameSite')
    expect(next).not.toContain('credential')
    await shot('passkey-add')
    await page.fill('input[name="passkey_name"]', 'Laptop')
    await page.getByRole('button', { name: 'Create the passkey' }).click()
    await page.waitForURL(`${base}/account?passkey=added`)
    const rows = page.locator('[data-testid="passkeys"] tbody tr')
    await expect(rows.count()).resolves.toBe(1)
    await expect(rows.first().locator('input[name="name"]').inputValue()).resolves.toBe('Laptop')
    const stored = await credentials()
    expect(stored).toHaveLength(1)
    expect(stored[0]?.isResidentCredential).toBe(true)

    await rows.first().locator('input[name="name"]').fill('Work laptop')
    await rows.first().getByRole('button', { name: 'Rename' }).click()
    await page.waitForURL(`${base}/account`)
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toBe('Passkey renamed.')
    await expect(rows.first().locator('input[name="name"]').inputValue()).resolves.toBe('Work laptop')
    await shot('passkeys')
  })

  it('a passkey id the account does not have: no confirmation page (404), and rename and remove change nothing', async () => {
    expect(
      (await page.goto(`${base}/account/confirm/passkey-remove?id=AAAAAAAAAAAAAAAAAAAAAA`))?.status(),
    ).toBe(404)
    const answers = await page.evaluate(async (password) => {
      const form = (body: Record<string, string>) => ({
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        body: new URLSearchParams(body).toString(),
      })
      const rename = await fetch(
        '/account/passkeys/AAAAAAAAAAAAAAAAAAAAAA/rename',
        form({ name: 'Mine now' }),
      )
      const remove = await fetch('/account/passkeys/AAAAAAAAAAAAAAAAAAAAAA/remove', form({ password }))
      // Each form redirects to the account page, which says so (the same for another account's passkey).
      return [
        rename.redirected && (await rename.text()).includes('No such passkey.'),
        remove.redirected && (await remove.text()).includes('No such passkey.'),
      ]
    }, PASSWORD)
    expect(answers).toEqual([true, true])
    await page.goto(`${base}/account`)
    await expect(page.locator('[data-testid="passkeys"] tbody tr').count()).resolves.toBe(1)
    await expect(page.locator('[data-testid="passkeys"] input[name="name"]').inputValue()).resolves.toBe(
      'Work laptop',
    )
  })

  it('the step-up credential is spent: creating a second passkey without a new confirmation is refused', async () => {
    const answer = await page.evaluate(async () => {
      const response = await fetch('/auth/passkeys/register/options', { method: 'POST', body: '{}' })
      return response.status
    })
    expect(answer).toBe(401)
  })

  it('signs out, then signs in with the passkey button', async () => {
    await signOut()
    // This browser offers conditional UI, which would answer first (the next test): hide it here.
    await page.evaluate("sessionStorage.setItem('no-conditional-ui', '1')")
    await page.goto(`${base}/sign-in`)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.waitForURL(`${base}/`)
    expect((await page.goto(`${base}/account`))?.status()).toBe(200)
    await expect(page.locator('[data-testid="username"]').textContent()).resolves.toBe('pia')
    await expect(
      page.locator('[data-testid="passkeys"] tbody tr').first().locator('td').nth(2).textContent(),
    ).resolves.not.toContain('never')
  })

  it('conditional UI: the username field offers the passkey (the virtual authenticator picks it)', async () => {
    await signOut()
    await page.evaluate("sessionStorage.removeItem('no-conditional-ui')")
    // The page signs in on its own as soon as the authenticator answers, possibly before a locator could
    // read it: the markup is checked as served (same cookies, no script), then the page does the rest.
    const served = await (await page.request.get(`${base}/sign-in`)).text()
    expect(served).toMatch(
      /aria-label="Sign in with a password"[\s\S]*?<input name="username" autocomplete="username webauthn"/,
    )
    await page.goto(`${base}/sign-in`)
    // No click: the request the page started with `mediation: 'conditional'` signs in.
    await page.waitForURL(`${base}/`)
    expect((await page.goto(`${base}/account`))?.status()).toBe(200)
  })

  it('on 127.0.0.1 the pages point to localhost instead of failing', async () => {
    await page.goto(`${base.replace('localhost', '127.0.0.1')}/sign-in`)
    await expect(page.locator('[data-passkey-elsewhere]').isVisible()).resolves.toBe(true)
    await expect(page.getByRole('button', { name: 'Sign in with a passkey' }).isDisabled()).resolves.toBe(
      true,
    )
    await expect(page.locator('[data-passkey-elsewhere] a').getAttribute('href')).resolves.toBe(
      `${base}/sign-in`,
    )
  })

  it('a passkey step-up confirms a guarded action: removing the passkey', async () => {
    await page.goto(`${base}/account`)
    const row = page.locator('[data-testid="passkeys"] tbody tr').first()
    await row.getByRole('link', { name: 'Remove' }).click()
    await page.waitForURL(new RegExp(`^${base}/account/confirm/passkey-remove\\?id=`))
    await page.getByRole('button', { name: 'Confirm with a passkey instead' }).click()
    await page.waitForURL(`${base}/account`)
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain('Passkey removed')
    await expect(page.locator('[data-testid="passkeys"] tbody tr').count()).resolves.toBe(0)
    await page.goto(`${base}/events`)
    const events = (await page.locator('[data-testid="events"]').textContent()) ?? ''
    for (const type of ['passkey.registered', 'passkey.used', 'passkey.removed']) {
      expect(events).toContain(type)
    }
    // One use signed in, the other confirmed the removal.
    expect(events).toMatch(/ceremony\W+sign_in/)
    expect(events).toMatch(/ceremony\W+step_up/)
  })

  it('with the password removed, the passkey alone confirms deleting the account', async () => {
    await page.goto(`${base}/account`)
    await page.getByRole('link', { name: 'Add a passkey' }).click()
    await page.locator('form[aria-label="Add a passkey"] input[name="password"]').fill(PASSWORD)
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await page.getByRole('button', { name: 'Create the passkey' }).click()
    await page.waitForURL(`${base}/account?passkey=added`)
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain('Passkey added')
    await page.locator('tr[data-method="password"]').getByRole('link', { name: 'Remove' }).click()
    await page.waitForURL(`${base}/account/confirm/password-remove`)
    await page.fill('input[name="password"]', PASSWORD)
    await page.getByRole('button', { name: 'Remove the password' }).click()
    await page.waitForURL(`${base}/account`)
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain('Password removed')
    // The passkey is the last way in now: no remove button (removing it would be refused with 409).
    const last = page.locator('[data-testid="passkeys"] tbody tr').first()
    await expect(last.locator('[data-testid="last-method"]').textContent()).resolves.toBe(
      'your only way to sign in',
    )
    await expect(last.locator('a[href*="passkey-remove"]').count()).resolves.toBe(0)
    await expect(last.getByRole('link', { name: /remove/i }).count()).resolves.toBe(0)
    // With no password left, the header keeps the name it showed.
    await expect(page.locator('.account .who').textContent()).resolves.toBe('pia')
    await shot('passkey-last')
    await expect(page.locator('[data-testid="totp-status"]').count()).resolves.toBe(0)
    await page.getByRole('link', { name: 'Delete the account…' }).click()
    const remove = page.locator('form[aria-label="Delete the account"]')
    await expect(remove.locator('input[name="password"]').count()).resolves.toBe(0)
    await remove.getByRole('button', { name: 'Delete the account (confirm with a passkey)' }).click()
    await page.waitForURL(`${base}/?deleted=1`)
    await expect(page.locator('[data-testid="deleted"]').textContent()).resolves.toContain(
      'Your account was deleted',
    )
    await page.evaluate("sessionStorage.setItem('no-conditional-ui', '1')")
    await signInWithPassword('pia')
    await expect(alert()).resolves.toContain('Wrong username or password')
  })

  it('a passkey the server no longer knows: the page says so and offers the other ways in', async () => {
    // The device still holds the deleted account's passkey.
    await page.goto(`${base}/sign-in`)
    const notice = page.locator('[data-passkey-unknown]')
    await expect(notice.isVisible()).resolves.toBe(false)
    const [answer] = await Promise.all([
      page.waitForResponse(`${base}/auth/passkeys/sign-in`),
      page.getByRole('button', { name: 'Sign in with a passkey' }).click(),
    ])
    expect(answer.status()).toBe(401)
    expect(await answer.json()).toMatchObject({ code: 'passkey.unknown_credential' })
    await notice.waitFor({ state: 'visible' })
    const text = await words(notice)
    expect(text).toContain('This passkey is not recognised')
    expect(text).toContain('username and password or with the demo IdP')
    expect(text).not.toContain('Authentication required')
    await expect(page.locator('[data-passkey-status]').isVisible()).resolves.toBe(false)
    // The other ways in are right there, and the username field has the focus.
    await expect(page.locator('form[aria-label="Sign in with a password"]').isVisible()).resolves.toBe(true)
    await expect(page.getByRole('link', { name: 'Sign in with the demo IdP' }).isVisible()).resolves.toBe(
      true,
    )
    await expect(page.evaluate("document.activeElement?.getAttribute('name') ?? ''")).resolves.toBe(
      'username',
    )
    await shot('passkey-unknown')
    await page.evaluate("sessionStorage.removeItem('no-conditional-ui')")
  })

  let recoveryCodes: readonly string[] = []
  let totp: TOTP | undefined
  const code = (offsetSeconds = 0) => totp?.generate({ timestamp: Date.now() + offsetSeconds * 1000 }) ?? ''

  it('sets up TOTP: a QR code and the key (kept after a wrong code), a first code, then ten recovery codes once', async () => {
    await signUp('tess')
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
    await page.getByRole('link', { name: 'Set up two-step sign-in' }).click()
    await page.waitForURL(`${base}/account/confirm/totp-enroll`)
    await page.fill('input[name="password"]', PASSWORD)
    await page.getByRole('button', { name: 'Set up two-step sign-in' }).click()
    await page.waitForURL(`${base}/account/totp/setup`)
    await expect(page.locator('[data-testid="totp-qr"] svg').count()).resolves.toBe(1)
    const secret = (await page.locator('[data-testid="totp-secret"]').textContent()) ?? ''
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(await page.content()).not.toContain('otpauth://')
    // Words for people: the protocol's names only in the folded details.
    const read = await readable(page.locator('main'))
    for (const term of ['RFC 6238', 'base32', 'TOTP']) expect(read).not.toContain(term)
    await page.getByRole('button', { name: 'Copy the key' }).click()
    await page.getByRole('button', { name: 'Copied' }).waitFor()
    expect(String(await page.evaluate('navigator.clipboard.readText()'))).toBe(secret)
    await shot('totp-enroll')
    totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
    await page.fill('input[name="code"]', code(-600))
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click()
    // A wrong code: the same page again (GET), the QR code and the same key kept, the error beside the field.
    await page.waitForURL(`${base}/account/totp/setup`)
    await expect(page.locator('#code-error').textContent()).resolves.toContain('wrong or expired')
    await expect(page.locator('input[name="code"]').getAttribute('aria-invalid')).resolves.toBe('true')
    await expect(page.locator('[data-testid="totp-qr"] svg').count()).resolves.toBe(1)
    await expect(page.locator('[data-testid="totp-secret"]').textContent()).resolves.toBe(secret)
    await shot('totp-wrong-code')
    await page.fill('input[name="code"]', code())
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click()
    await page.waitForURL(`${base}/account/totp/codes`)
    const items = page.locator('[data-testid="totp-recovery-codes"] li')
    await expect(items.count()).resolves.toBe(10)
    recoveryCodes = (await items.allTextContents()).map((text) => text.trim())
    expect(recoveryCodes.every((text) => /^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/.test(text))).toBe(true)
    await page.getByRole('button', { name: 'Copy the codes' }).click()
    await page.getByRole('button', { name: 'Copied' }).waitFor()
    expect(String(await page.evaluate('navigator.clipboard.readText()')).split(/\s+/)).toEqual(recoveryCodes)
    // Shown once: a reload shows them no more, and the setup is over.
    await page.reload()
    await expect(page.locator('[data-testid="totp-recovery-codes"]').count()).resolves.toBe(0)
    expect(await page.content()).not.toContain(recoveryCodes[0])
    await page.goto(`${base}/account/totp/setup`)
    expect(await page.content()).not.toContain(secret)
    await page.goto(`${base}/account`)
    await expect(page.locator('[data-testid="totp-status"]').textContent()).resolves.toContain('10')
    expect(await page.content()).not.toContain(recoveryCodes[0])
  })

  it('signs in with the password and a code (a wrong code first)', async () => {
    await signOut()
    await signInWithPassword('tess')
    await page.waitForSelector('form[aria-label="Sign in with a code"]')
    expect(page.url()).toBe(`${base}/sign-in`)
    await page.fill('input[name="code"]', code(-600))
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(alert()).resolves.toContain('wrong or was already used')
    await shot('second-factor')
    // The enrollment used this step's code: the next step's is still inside the window.
    await page.fill('input[name="code"]', code(30))
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForURL(`${base}/`)
    expect((await page.goto(`${base}/account`))?.status()).toBe(200)
  })

  it('signs in with a recovery code instead; a used one is refused', async () => {
    await signOut()
    await signInWithPassword('tess')
    await page.fill('input[name="recovery_code"]', recoveryCodes[0] ?? '')
    await page.getByRole('button', { name: 'Use a recovery code' }).click()
    await page.waitForURL(`${base}/`)
    await signOut()
    await signInWithPassword('tess')
    await page.fill('input[name="recovery_code"]', (recoveryCodes[0] ?? '').toUpperCase())
    await page.getByRole('button', { name: 'Use a recovery code' }).click()
    await expect(alert()).resolves.toContain('recovery code is wrong or was already used')
    expect((await page.goto(`${base}/account`))?.status()).toBe(401)
    await signInWithPassword('tess')
    await page.fill('input[name="recovery_code"]', recoveryCodes[1] ?? '')
    await page.getByRole('button', { name: 'Use a recovery code' }).click()
    await page.waitForURL(`${base}/`)
    await page.goto(`${base}/account`)
    await expect(page.locator('[data-testid="totp-status"]').textContent()).resolves.toContain('8')
  })

  it('API clients: /auth/login answers 202 with a pending token, /auth/login/second-factor finishes', async () => {
    const first = await post('/auth/login', { username: 'tess', password: PASSWORD })
    expect(first.status).toBe(202)
    expect(first.headers.get('set-cookie') ?? '').not.toContain('session')
    const pending = (await first.json()) as { secondFactorRequired: boolean; pendingToken: string }
    expect(pending.secondFactorRequired).toBe(true)
    const wrong = await post('/auth/login/second-factor', {
      pendingToken: pending.pendingToken,
      recoveryCode: recoveryCodes[0],
    })
    expect(wrong.status).toBe(401)
    const right = await post('/auth/login/second-factor', {
      pendingToken: pending.pendingToken,
      recoveryCode: recoveryCodes[2],
    })
    expect(right.status).toBe(200)
    expect(right.headers.get('set-cookie') ?? '').toMatch(/session=/)
  })

  it('new recovery codes replace the old set; turning TOTP off makes the password enough again', async () => {
    await page.getByRole('link', { name: 'New recovery codes' }).click()
    await page.fill('input[name="password"]', PASSWORD)
    await page.getByRole('button', { name: 'Make new recovery codes' }).click()
    await page.waitForURL(`${base}/account/totp/codes`)
    const fresh = await page.locator('[data-testid="totp-recovery-codes"] li').allTextContents()
    expect(fresh).toHaveLength(10)
    expect(fresh).not.toContain(recoveryCodes[3])
    // An unused code of the old set no longer works; one of the new set does.
    const pending = (await (await post('/auth/login', { username: 'tess', password: PASSWORD })).json()) as {
      pendingToken: string
    }
    const second = (recoveryCode: string | undefined) =>
      post('/auth/login/second-factor', { pendingToken: pending.pendingToken, recoveryCode })
    expect((await second(recoveryCodes[3])).status).toBe(401)
    expect((await second(fresh[0]?.trim())).status).toBe(200)
    await page.goto(`${base}/account`)
    await page.getByRole('link', { name: 'Turn off' }).click()
    await page.fill('input[name="password"]', PASSWORD)
    await page.getByRole('button', { name: 'Turn off two-step sign-in' }).click()
    await page.waitForURL(`${base}/account`)
    await expect(page.locator('[data-testid="flash"]').textContent()).resolves.toContain(
      'Two-step sign-in is off',
    )
    await signOut()
    await signInWithPassword('tess')
    await page.waitForURL(`${base}/`)
  })
})
