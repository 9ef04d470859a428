// An MCP client connected: the "an app was connected" notification is written with the grant, in the
// store's step, when the approval creates the grant, through the whole stack (createAuthorizationServer,
// the persistence bridge, the real interactions) over loopback HTTP.
import { randomBytes } from 'node:crypto'
import { SecurityNotifier } from '@portcullis/core/account-email'
import {
  MemoryMailOutbox,
  MemoryNotificationSettings,
  openOutboxMessage,
  validateMailMessage,
} from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { notifiedClientName } from '../src/interactions/connection-notice.js'
import { REDIRECT_URI } from './interactions/support/app.js'
import { Browser } from './interactions/support/browser.js'
import { consentPage, post } from './interactions/support/flow.js'
import {
  authorizationUrl,
  connect,
  type FullStack,
  redeemedTokens,
  startFullStack,
} from './support/server-with-interactions.js'

const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('connections', randomBytes(32)),
})

describe('the connection of an MCP client is notified with its grant', () => {
  const outbox = new MemoryMailOutbox()
  const settings = new MemoryNotificationSettings()
  let notifier: SecurityNotifier | undefined
  let stack: FullStack

  beforeAll(async () => {
    stack = await startFullStack(
      'express',
      {
        securityNotices: {
          entries: (accountId, change) => (notifier as SecurityNotifier).entries(accountId, change),
        },
      },
      { outbox },
    )
    notifier = new SecurityNotifier({
      accounts: stack.accounts,
      notificationSettings: settings,
      outbox,
      protector,
    })
  })
  afterAll(async () => stack.close())

  async function person(name: string): Promise<string> {
    const accountId = await stack.newAccount(name)
    const address = `${accountId}@example.com`
    const now = new Date()
    await stack.accounts.addEmailAddress({ accountId, address, now })
    await stack.accounts.verifyEmailAddress({ accountId, address, now })
    return accountId
  }

  /** The connection notices of the account in the outbox, as their (checked) messages. */
  async function noticesOf(accountId: string) {
    const messages = []
    for (const row of outbox.pending()) {
      if (row.accountId !== accountId) continue
      messages.push(validateMailMessage(await openOutboxMessage(protector, row)))
    }
    return messages
  }

  it('a first connection writes one notice to the person, naming the client as the consent page did', async () => {
    const accountId = await person('ana')
    const { grantId } = await connect(stack, accountId, new Date())
    expect(await stack.store.status(grantId as string)).toBeDefined()
    const messages = await noticesOf(accountId)
    expect(messages).toHaveLength(1)
    expect(messages[0]).toMatchObject({
      kind: 'security-notification',
      to: { address: `${accountId}@example.com` },
      change: { type: 'mcp-client-connected', client: 'Notes Assistant' },
    })
  })

  it('more scopes for a connected client is no new connection; connecting again after a disconnection is', async () => {
    const accountId = await person('ben')
    const { browser, grantId } = await connect(stack, accountId, new Date())
    const grown = authorizationUrl(stack, { scope: 'notes:read notes:write' })
    const page = await consentPage(browser, grown.url)
    const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    const again = await redeemedTokens(stack, location, grown)
    expect(again.grantId).toBe(grantId)
    expect(await noticesOf(accountId)).toHaveLength(1)
    expect(await stack.server.disconnect(accountId, grantId as string)).toBe(true)
    const reconnected = await connect(stack, accountId, new Date())
    expect(reconnected.grantId).not.toBe(grantId)
    expect(await noticesOf(accountId)).toHaveLength(2)
  })

  it('a person who turned the kind off gets no notice, and the client still connects', async () => {
    const accountId = await person('cai')
    await settings.setOptOuts({ accountId, optOuts: ['mcp-client-connected'], now: new Date() })
    const { grantId } = await connect(stack, accountId, new Date())
    expect(await stack.store.status(grantId as string)).toBeDefined()
    expect(await noticesOf(accountId)).toEqual([])
  })

  it("a client's hostile name reaches the mail cleaned: no line break, no encoded word, bounded", async () => {
    const accountId = await person('dee')
    const hostile = `Notes\r\nBcc: victim@example.com =?UTF-8?B?SGk=?= \u202eevil${'x'.repeat(300)}`
    const clientId = stack.documents.client('/hostile-client.json', {
      client_name: hostile,
      application_type: 'web',
      redirect_uris: [REDIRECT_URI],
    })
    const browser = new Browser(stack.origin)
    stack.signIn(browser, accountId, new Date())
    const request = authorizationUrl({ issuer: stack.issuer, webClientId: clientId })
    const page = await consentPage(browser, request.url)
    await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    const [message] = await noticesOf(accountId)
    const client = (message as { change: { client: string } }).change.client
    expect(client.startsWith('Notes Bcc: victim@example.com = ?UTF-8?B?SGk= ?= evilxxx')).toBe(true)
    expect(client).not.toMatch(/[\r\n\u202e]/u)
    expect([...client]).toHaveLength(200)
  })
})

describe('notifiedClientName', () => {
  it('drops controls and separators, breaks encoded words, bounds the length, falls back when empty', () => {
    expect(notifiedClientName('  Claude   Desktop ')).toBe('Claude Desktop')
    expect(notifiedClientName('a\u2028b\u2066c\u0085d')).toBe('a b c d')
    expect(notifiedClientName('=?utf-8?q?x?=')).toBe('= ?utf-8?q?x?=')
    expect(notifiedClientName('\r\n\t')).toBe('An app')
    expect([...notifiedClientName('\u{1F600}'.repeat(250))]).toHaveLength(200)
  })
})
