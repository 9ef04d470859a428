import { PostgresAccountStore } from '@portcullis/postgres'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoAccountId } from '../src/accounts/local-accounts.js'
import { DEMO_PROVIDER } from '../src/accounts/oauth.js'
import { linkDemoIdentities } from '../src/demo-idp/demo-identities.js'
import { DEMO_IDP_CLIENT_ID } from '../src/demo-idp/demo-idp.js'
import { type Browser, chromiumPath, launchChromium } from './support/chromium.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The demo IdP's people are the app's demo users: choosing "Alice Archer" at the demo IdP signs in to the
 * real Alice's account (her identity there is linked to it when the app starts, exact on issuer and
 * subject), never to a second, empty account. Only the newcomer the login page names as new creates an
 * account. In headless Chromium, clicking as a person does.
 */
let app: TestApp
let browser: Browser
let page: Page

const demoLinks = () =>
  new PostgresAccountStore({ client: app.postgres }).oauth({
    provider: DEMO_PROVIDER,
    clientId: DEMO_IDP_CLIENT_ID,
    protector: app.keys.protector,
  })
const accountCount = async () =>
  Number(
    (await app.postgres.pool.query<{ n: string }>('select count(*) as n from portcullis_accounts')).rows[0]
      ?.n,
  )
const whoami = async () => {
  const response = await page.goto(`${app.url}/api/whoami`)
  expect(response?.status()).toBe(200)
  return (await response?.json()) as { principal: { id: string } }
}

describe.skipIf(chromiumPath === undefined)('signing in through the demo IdP', () => {
  beforeAll(async () => {
    app = await startTestApp()
    browser = await launchChromium()
    page = await browser.context.newPage()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  /** From the app's sign-in page to the demo IdP's login form, then signs in there as `username`. */
  const signInAtIdp = async (username: string) => {
    await browser.context.clearCookies()
    await page.goto(`${app.url}/sign-in`)
    await page.getByRole('link', { name: 'Sign in with the demo IdP' }).click()
    await page.waitForURL(/\/interaction\//)
    await page.check(`input[name="username"][value="${username}"]`)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${app.url}/`)
  }

  it('the login page says whose account each person opens', async () => {
    await browser.context.clearCookies()
    await page.goto(`${app.url}/sign-in`)
    await page.getByRole('link', { name: 'Sign in with the demo IdP' }).click()
    await page.waitForURL(/\/interaction\//)
    const alice = page.locator('label', { has: page.locator('input[value="alice"]') })
    await expect(alice.textContent()).resolves.toContain("Alice's account")
    const dana = page.locator('label', { has: page.locator('input[value="dana"]') })
    await expect(dana.textContent()).resolves.toMatch(/creates a new account/)
  })

  it('as Alice Archer: lands in the real Alice account, and no account is created', async () => {
    const before = await accountCount()
    await signInAtIdp('alice')
    await expect((await whoami()).principal.id).toBe(demoAccountId('alice'))
    await page.goto(`${app.url}/account`)
    await expect(page.locator('[data-testid="username"]').textContent()).resolves.toBe('alice')
    expect(await accountCount()).toBe(before)
    // The same again (the IdP's session remembered or not): still her account.
    await signInAtIdp('bob')
    await expect((await whoami()).principal.id).toBe(demoAccountId('bob'))
    expect(await accountCount()).toBe(before)
  })

  it('as the newcomer the page names new: one new account, the same one on the next sign-in', async () => {
    const before = await accountCount()
    await signInAtIdp('dana')
    const first = (await whoami()).principal.id
    expect(first).not.toMatch(/^demo-/)
    expect(await accountCount()).toBe(before + 1)
    await signInAtIdp('dana')
    expect((await whoami()).principal.id).toBe(first)
    expect(await accountCount()).toBe(before + 1)
  })

  it('a restart with the demo IdP at another issuer moves the link; a taken identity is reported', async () => {
    const store = demoLinks()
    const owners = [{ accountId: demoAccountId('carol'), username: 'carol' }]
    const issuer = app.running.idpUrl ?? ''
    expect(
      await store.resolveLink({ accountId: owners[0]?.accountId ?? '', provider: DEMO_PROVIDER }),
    ).toMatchObject({
      issuer,
      subject: 'carol',
    })
    // Another port at the next start: the link follows the issuer (carol keeps her password).
    const moved = 'http://127.0.0.1:1'
    expect(await linkDemoIdentities({ store, provider: DEMO_PROVIDER, issuer: moved, owners })).toEqual([])
    expect(
      await store.resolveLink({ accountId: demoAccountId('carol'), provider: DEMO_PROVIDER }),
    ).toMatchObject({
      issuer: moved,
      subject: 'carol',
    })
    // Back again, and a second run changes nothing.
    expect(await linkDemoIdentities({ store, provider: DEMO_PROVIDER, issuer, owners })).toEqual([])
    const linked = await store.resolveLink({ accountId: demoAccountId('carol'), provider: DEMO_PROVIDER })
    expect(await linkDemoIdentities({ store, provider: DEMO_PROVIDER, issuer, owners })).toEqual([])
    expect(await store.resolveLink({ accountId: demoAccountId('carol'), provider: DEMO_PROVIDER })).toEqual(
      linked,
    )
    // dana's identity is the one method of the account her sign-in created: never taken from it.
    const created = await new PostgresAccountStore({ client: app.postgres }).createAccount({
      accountId: 'acct-claims-dana',
      username: 'claims-dana',
      passwordHash: 'unused',
      now: new Date(),
    })
    expect(created.outcome).toBe('created')
    const notices = await linkDemoIdentities({
      store,
      provider: DEMO_PROVIDER,
      issuer,
      owners: [{ accountId: 'acct-claims-dana', username: 'dana' }],
    })
    expect(notices).toHaveLength(1)
    expect(notices[0]).toContain('dana')
    expect(await store.resolveLink({ accountId: 'acct-claims-dana', provider: DEMO_PROVIDER })).toBeNull()
    // An account whose one sign-in method is a link to an earlier issuer keeps it, and the start says so.
    const provisioned = await store.login({
      identity: { provider: DEMO_PROVIDER, issuer: moved, subject: 'erin' },
      grant: { scopes: ['openid'] },
      provisionUnknown: true,
      now: new Date(),
    })
    const kept = await linkDemoIdentities({
      store,
      provider: DEMO_PROVIDER,
      issuer,
      owners: [{ accountId: provisioned.link.accountId, username: 'erin' }],
    })
    expect(kept).toEqual([expect.stringContaining('keeps its link to the demo IdP at http://127.0.0.1:1')])
    expect(
      await store.resolveLink({ accountId: provisioned.link.accountId, provider: DEMO_PROVIDER }),
    ).toMatchObject({ issuer: moved, subject: 'erin' })
    await signInAtIdp('carol')
    await expect((await whoami()).principal.id).toBe(demoAccountId('carol'))
  })
})
