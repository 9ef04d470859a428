import { PostgresOrganizationStore } from '@portcullis/postgres'
import { startTestDnsServer, type TestDnsServer } from '@portcullis/test-support/dns-server'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REFERENCE_ROLES } from '../src/organizations/organization-wiring.js'
import { chromiumPath, launchChromiumBrowser } from './support/chromium.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * Joining by verified domain, in headless Chromium, by clicking. Alice (owner of acme) claims a domain,
 * proves it with a TXT record on a loopback DNS server and sets its enrollment to automatic invitation.
 * A new person signs up, adds an address at exactly that domain and verifies it: an invitation mail
 * arrives in the development mailbox, and they become a member only by accepting it. A person at a
 * subdomain verifies theirs and gets nothing; a forged enrollment mode changes nothing. In suggestion
 * mode nobody is mailed: a person with a verified address at the domain sees the organization on
 * /organizations and asks to join; the owner approves on the organization's page (a viewer membership)
 * and the person opens its tenant page; another person's request is declined and makes no member.
 */
const DOMAIN = 'joining.portcullis-test.example'
const PASSWORD = 'a long passphrase for joining'
const ADD_EMAIL = 'form[aria-label="Add an address"] input[name="email"]'
const ADD_PASSWORD = 'form[aria-label="Add an address"] input[name="password"]'

let app: TestApp
let browser: Browser
let dns: TestDnsServer
let owner: BrowserContext

const words = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim()
const flash = (page: Page) => words(page.locator('[data-testid="flash"]'))

/** The mail to `to` whose subject matches, reloading the mailbox until it arrives (sent after commit). */
async function mailTo(page: Page, to: string, subject: RegExp): Promise<Locator> {
  const deadline = Date.now() + 20_000
  for (;;) {
    await page.goto(`${app.url}/dev/mailbox`)
    const mail = page
      .locator('article.mail', { has: page.locator('[data-testid="mail-to"]', { hasText: to }) })
      .filter({ has: page.locator('[data-testid="mail-subject"]', { hasText: subject }) })
    if ((await mail.count()) > 0) return mail.first()
    if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${subject}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** A new account by the sign-up page, with `address` added and verified from its mail's link. */
async function signUpWithVerifiedAddress(page: Page, username: string, address: string) {
  await page.goto(`${app.url}/sign-up`)
  await page.fill('input[name="username"]', username)
  await page.fill('input[name="password"]', PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.waitForURL(`${app.url}/account`)
  await page.getByRole('link', { name: 'Add an address' }).click()
  await page.fill(ADD_EMAIL, address)
  await page.fill(ADD_PASSWORD, PASSWORD)
  await page.getByRole('button', { name: 'Add the address' }).click()
  await page.waitForURL(`${app.url}/account`)
  const mailbox = await page.context().newPage()
  const mail = await mailTo(mailbox, address, /^Verify your email address/)
  const link =
    (await mail.locator('[data-testid="mail-text"] a[href*="/verify-email?"]').getAttribute('href')) ?? ''
  await mailbox.close()
  await page.goto(link)
  await page.getByRole('button', { name: 'Verify the address' }).click()
  await expect(words(page.locator('[data-testid="verified"]'))).resolves.toBe('The address is verified.')
}

/** The invitations of acme pending for `address`, read from the database as the owner sees them. */
async function pendingFor(address: string) {
  const store = new PostgresOrganizationStore({ client: app.postgres, roles: REFERENCE_ROLES })
  const listed = await store.listInvitations({
    organizationId: 'acme',
    actorAccountId: 'demo-alice',
    now: new Date(),
  })
  if (listed.outcome !== 'listed') throw new Error(`acme's invitations: ${listed.outcome}`)
  return listed.invitations.filter((invitation) => invitation.address === address)
}

describe.skipIf(chromiumPath === undefined)('joining by verified domain, in a browser', () => {
  beforeAll(async () => {
    dns = await startTestDnsServer()
    app = await startTestApp({ dnsServers: [dns.server] })
    browser = await launchChromiumBrowser()
    owner = await browser.newContext()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await app?.close()
    await dns?.close()
  })

  it('automatic invitation: an address verified at the domain is mailed an invitation; accepting makes a member; a subdomain gets nothing', async () => {
    const alice = await owner.newPage()
    await alice.goto(`${app.url}/sign-in`)
    await alice.fill('input[name="username"]', 'alice')
    await alice.fill('input[name="password"]', app.password('alice'))
    await alice.getByRole('button', { name: 'Sign in', exact: true }).click()
    await alice.waitForURL(`${app.url}/`)
    await alice.goto(`${app.url}/organizations/acme/domains`)
    const claim = alice.getByRole('form', { name: 'Claim a domain' })
    await claim.locator('input[name="domain"]').fill(DOMAIN)
    await claim.getByRole('button', { name: 'Claim' }).click()
    await alice.waitForURL(`${app.url}/organizations/acme/domains`)
    const item = alice.locator(`li[data-domain="${DOMAIN}"]`)
    // Not verified: no enrollment to choose yet.
    await expect(item.locator('select[name="enrollment"]').count()).resolves.toBe(0)
    dns.setTxt(await words(item.locator('[data-testid="record-name"]')), [
      await words(item.locator('[data-testid="record-value"]')),
    ])
    await item.getByRole('button', { name: 'Verify' }).click()
    await alice.waitForURL(`${app.url}/organizations/acme/domains`)
    await expect(flash(alice)).resolves.toContain(`${DOMAIN} is verified`)
    await expect(words(item.locator('[data-testid="enrollment"]'))).resolves.toMatch(/^Manual/)

    // A person who verifies an address at the domain while it is manual gets nothing.
    const early = await (await browser.newContext()).newPage()
    await signUpWithVerifiedAddress(early, 'erin-joining', `erin@${DOMAIN}`)
    expect(await pendingFor(`erin@${DOMAIN}`)).toEqual([])

    // A forged mode is refused; the mode stays manual.
    const action = (await item.locator('form[action$="/enrollment"]').getAttribute('action')) ?? ''
    expect(action).toMatch(/^\/organizations\/acme\/domains\/[^/]+\/enrollment$/)
    const forged = await alice.request.post(`${app.url}${action}`, {
      form: { enrollment: 'automatic-membership' },
      headers: { origin: app.url },
      maxRedirects: 0,
    })
    expect(forged.status()).toBe(303)
    await alice.goto(`${app.url}/organizations/acme/domains`)
    await expect(flash(alice)).resolves.toContain('Choose one of the enrollment modes')
    await expect(words(item.locator('[data-testid="enrollment"]'))).resolves.toMatch(/^Manual/)

    await item.locator('select[name="enrollment"]').selectOption('automatic-invitation')
    await item.getByRole('button', { name: 'Change enrollment' }).click()
    await alice.waitForURL(`${app.url}/organizations/acme/domains`)
    await expect(flash(alice)).resolves.toContain(`Joining ${DOMAIN}: Automatic invitation`)
    await expect(words(item.locator('[data-testid="enrollment"]'))).resolves.toMatch(/^Automatic invitation/)
    await expect(item.locator('select[name="enrollment"]').inputValue()).resolves.toBe('automatic-invitation')

    // Heidi signs up and verifies heidi@<domain>: the invitation mail, in Alice's organization's name.
    const heidiContext = await browser.newContext()
    const heidi = await heidiContext.newPage()
    const HEIDI = `heidi@${DOMAIN}`
    await signUpWithVerifiedAddress(heidi, 'heidi-joining', HEIDI)
    expect(await pendingFor(HEIDI)).toHaveLength(1)
    // Not a member by the address alone.
    expect((await heidi.goto(`${app.url}/tenants/acme`))?.status()).toBe(403)
    const mailbox = await heidiContext.newPage()
    const invitation = await mailTo(mailbox, HEIDI, /invited to join Acme Corporation/)
    const link =
      (await invitation
        .locator('[data-testid="mail-text"] a[href*="/organizations/invitations/accept?"]')
        .getAttribute('href')) ?? ''
    expect(link.startsWith(`${app.url}/organizations/invitations/accept?flow=`)).toBe(true)
    await mailbox.close()
    await heidi.goto(link)
    await heidi.getByRole('button', { name: 'Accept the invitation' }).click()
    await heidi.waitForURL(`${app.url}/organizations/acme`)
    await expect(flash(heidi)).resolves.toContain('you are now viewer')
    expect((await heidi.goto(`${app.url}/tenants/acme`))?.status()).toBe(200)
    expect(await pendingFor(HEIDI)).toEqual([])

    // Ivan verifies an address at a subdomain: not that domain, so no invitation, no mail.
    const ivan = await (await browser.newContext()).newPage()
    const IVAN = `ivan@mail.${DOMAIN}`
    await signUpWithVerifiedAddress(ivan, 'ivan-joining', IVAN)
    expect(await pendingFor(IVAN)).toEqual([])
    await ivan.goto(`${app.url}/dev/mailbox`)
    await expect(
      ivan
        .locator('article.mail', { has: ivan.locator('[data-testid="mail-to"]', { hasText: IVAN }) })
        .filter({ has: ivan.locator('[data-testid="mail-subject"]', { hasText: /invited to join/ }) })
        .count(),
    ).resolves.toBe(0)
    expect((await ivan.goto(`${app.url}/tenants/acme`))?.status()).toBe(403)

    // In suggestion mode an address at exactly the domain is mailed nothing either.
    await alice.goto(`${app.url}/organizations/acme/domains`)
    await item.locator('select[name="enrollment"]').selectOption('automatic-suggestion')
    await item.getByRole('button', { name: 'Change enrollment' }).click()
    await alice.waitForURL(`${app.url}/organizations/acme/domains`)
    await expect(words(item.locator('[data-testid="enrollment"]'))).resolves.toMatch(/^Suggestion/)
    const judy = await (await browser.newContext()).newPage()
    await signUpWithVerifiedAddress(judy, 'judy-joining', `judy@${DOMAIN}`)
    expect(await pendingFor(`judy@${DOMAIN}`)).toEqual([])
    // Judy sees acme suggested on her organizations page; she is no member until an administrator decides.
    await judy.goto(`${app.url}/organizations`)
    const suggestion = judy.locator('[data-testid="suggestions"] li[data-suggestion="acme"]')
    await expect(words(suggestion)).resolves.toBe(`Acme Corporation (${DOMAIN}) Ask to join`)
    expect((await judy.goto(`${app.url}/tenants/acme`))?.status()).toBe(403)
    await judy.goto(`${app.url}/organizations`)
    // A form posted from another site asks nothing.
    const askAction = (await suggestion.locator('form').getAttribute('action')) ?? ''
    expect(askAction).toBe('/organizations/acme/join-requests')
    const crossSite = await judy.request.post(`${app.url}${askAction}`, {
      form: {},
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      maxRedirects: 0,
    })
    expect(crossSite.status()).toBe(403)
    await suggestion.getByRole('button', { name: 'Ask to join' }).click()
    await judy.waitForURL(`${app.url}/organizations`)
    await expect(flash(judy)).resolves.toContain('Your request to join is sent')
    await expect(words(suggestion.locator('[data-testid="join-requested"]'))).resolves.toContain('waiting')
    expect((await judy.goto(`${app.url}/tenants/acme`))?.status()).toBe(403)

    // Alice sees the request on acme's page and approves it: Judy is a viewer (never a role of the form).
    await alice.goto(`${app.url}/organizations/acme`)
    const asking = alice.locator(`[data-testid="join-requests"] tr[data-join-request="judy@${DOMAIN}"]`)
    await expect(asking.count()).resolves.toBe(1)
    await asking.getByRole('button', { name: 'Approve' }).click()
    await alice.waitForURL(`${app.url}/organizations/acme`)
    await expect(flash(alice)).resolves.toContain('they are a member now, as viewer')
    await expect(alice.locator('[data-testid="join-requests"]').count()).resolves.toBe(0)
    await expect(
      words(alice.locator(`tr[data-member="judy@${DOMAIN}"] [data-testid="member-role"]`)),
    ).resolves.toBe('viewer')
    const tenant = await judy.goto(`${app.url}/tenants/acme`)
    expect(tenant?.status()).toBe(200)
    await judy.goto(`${app.url}/organizations`)
    await expect(words(judy.locator('tr[data-organization="acme"]'))).resolves.toContain('viewer')
    await expect(judy.locator('[data-testid="suggestions"]').count()).resolves.toBe(0)

    // Kim asks too; Alice declines: no membership, and the suggestion can be asked again.
    const kim = await (await browser.newContext()).newPage()
    await signUpWithVerifiedAddress(kim, 'kim-joining', `kim@${DOMAIN}`)
    await kim.goto(`${app.url}/organizations`)
    await kim
      .locator('[data-testid="suggestions"] li[data-suggestion="acme"]')
      .getByRole('button', { name: 'Ask to join' })
      .click()
    await kim.waitForURL(`${app.url}/organizations`)
    await alice.goto(`${app.url}/organizations/acme`)
    await alice
      .locator(`[data-testid="join-requests"] tr[data-join-request="kim@${DOMAIN}"]`)
      .getByRole('button', { name: 'Decline' })
      .click()
    await alice.waitForURL(`${app.url}/organizations/acme`)
    await expect(flash(alice)).resolves.toContain('Declined')
    expect((await kim.goto(`${app.url}/tenants/acme`))?.status()).toBe(403)
    // Not to Heidi (a member already) nor to Ivan (a subdomain).
    await heidi.goto(`${app.url}/organizations`)
    await expect(words(heidi.locator('tr[data-organization="acme"]'))).resolves.toContain('viewer')
    await expect(heidi.locator('[data-testid="suggestions"]').count()).resolves.toBe(0)
    await ivan.goto(`${app.url}/organizations`)
    await expect(ivan.locator('[data-testid="suggestions"]').count()).resolves.toBe(0)
  }, 120_000)

  it('a cross-site enrollment form changes nothing', async () => {
    const alice = await owner.newPage()
    await alice.goto(`${app.url}/organizations/acme/domains`)
    const item = alice.locator(`li[data-domain="${DOMAIN}"]`)
    const action = (await item.locator('form[action$="/enrollment"]').getAttribute('action')) ?? ''
    const crossSite = await alice.request.post(`${app.url}${action}`, {
      form: { enrollment: 'automatic-invitation' },
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      maxRedirects: 0,
    })
    expect(crossSite.status()).toBe(403)
    await alice.reload()
    await expect(words(item.locator('[data-testid="enrollment"]'))).resolves.toMatch(/^Suggestion/)
  })
})
