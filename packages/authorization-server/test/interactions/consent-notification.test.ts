import { randomBytes } from 'node:crypto'
import { SecurityNotifier } from '@portcullis/core/account-email'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryMailOutbox, MemoryNotificationSettings, openOutboxMessage } from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { afterEach, describe, expect, it } from 'vitest'
import type { ConsentedGrant } from '../../src/index.js'
import { CLIENT_ID, CLIENT_NAME, startApp, type TestApp } from './support/app.js'
import { Browser } from './support/browser.js'
import { consentPage, post } from './support/flow.js'

const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
})

async function notifierFor(accountId: string) {
  const outbox = new MemoryMailOutbox()
  const accounts = new MemoryAccountStore()
  const now = new Date()
  await accounts.createAccount({ accountId, username: accountId, passwordHash: '$scrypt$x', now })
  await accounts.addEmailAddress({ accountId, address: `${accountId}@example.com`, now })
  await accounts.verifyEmailAddress({ accountId, address: `${accountId}@example.com`, now })
  const notificationSettings = new MemoryNotificationSettings()
  const notifier = new SecurityNotifier({ accounts, notificationSettings, outbox, protector })
  return { outbox, notifier, notificationSettings }
}

describe.each(['express', 'fastify'] as const)('a consented MCP client on %s', (mount) => {
  let app: TestApp | undefined
  afterEach(async () => {
    await app?.close()
    app = undefined
  })

  it('is told to onConsented after the grant is saved, and a security notification is mailed', async () => {
    const { outbox, notifier } = await notifierFor('alice')
    const consented: ConsentedGrant[] = []
    app = await startApp(mount, {
      onConsented: (grant) => {
        consented.push(grant)
        return notifier.notify(grant.accountId, { type: 'mcp-client-connected', client: grant.clientName })
      },
    })
    const browser = new Browser(app.origin)
    app.signIn(browser, 'alice')
    const page = await consentPage(browser, app.authorize().url)
    expect(consented).toEqual([])
    await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    expect(consented).toEqual([{ accountId: 'alice', clientId: CLIENT_ID, clientName: CLIENT_NAME }])
    await expect.poll(() => outbox.pending().length).toBe(1)
    const message = await openOutboxMessage(protector, outbox.pending()[0] as never)
    expect(message).toMatchObject({
      kind: 'security-notification',
      to: { address: 'alice@example.com' },
      change: { type: 'mcp-client-connected', client: CLIENT_NAME },
    })
  })

  it('is not told of a denied authorization; a failing hook never fails the authorization', async () => {
    const errors: unknown[] = []
    const consented: ConsentedGrant[] = []
    app = await startApp(mount, {
      onConsented: async (grant) => {
        consented.push(grant)
        throw new Error('mail is down')
      },
      onError: (error) => errors.push(error),
    })
    const browser = new Browser(app.origin)
    app.signIn(browser, 'bob')
    const denied = await consentPage(browser, app.authorize().url)
    await post(browser, denied.url, { csrf: denied.csrf, decision: 'deny' })
    expect(consented).toEqual([])
    const page = await consentPage(browser, app.authorize().url)
    const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    expect(new URL(location as string).searchParams.get('code')).toBeTruthy()
    expect(consented).toHaveLength(1)
    await expect.poll(() => errors.length).toBe(1)
  })

  it('securityNotices over an oidc-provider of its own (not the server store): the grant stands, onError is told', async () => {
    const errors: unknown[] = []
    const { outbox, notifier } = await notifierFor('cora')
    app = await startApp(mount, {
      securityNotices: notifier,
      onError: (error) => errors.push(error),
    })
    const browser = new Browser(app.origin)
    app.signIn(browser, 'cora')
    const page = await consentPage(browser, app.authorize().url)
    const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    expect(new URL(location as string).searchParams.get('code')).toBeTruthy()
    expect(outbox.pending()).toEqual([])
    expect(errors).toMatchObject([{ code: 'authorization_server.notice_not_written' }])
  })
})
