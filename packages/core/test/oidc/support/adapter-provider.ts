import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SecurityNotifier } from '../../../src/account-email/notifications.js'
import { MemoryNotificationSettings } from '../../../src/mail/memory-notification-settings.js'
import { MemoryMailOutbox } from '../../../src/mail/memory-outbox.js'
import { openOutboxMessage } from '../../../src/mail/outbox-seal.js'
import { AESGCMOAuthTransactionProtector } from '../../../src/protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../../../src/protection/key.js'
import { OidcFixture, PROVIDER } from './fixture.js'
import { DEFAULT_CLIENT } from './test-idp.js'

const BACKCHANNEL_PATH = `/auth/oauth/${PROVIDER}/backchannel-logout`

/**
 * The provider's registered `backchannel_logout_uri`, on loopback before any application exists: it
 * forwards each logout request (method, `Content-Type`, body) to the application `target` names and
 * answers with the application's status and body.
 */
async function backchannelDoor(): Promise<{ url: string; target(appUrl: string): void; server: Server }> {
  let appUrl: string | undefined
  const read = async (request: IncomingMessage) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }
  const server = createServer((request, response) => {
    void (async () => {
      const body = await read(request)
      if (appUrl === undefined) {
        response.writeHead(503).end()
        return
      }
      const type = request.headers['content-type']
      const answer = await fetch(`${appUrl}${BACKCHANNEL_PATH}`, {
        method: request.method ?? 'POST',
        headers: type === undefined ? {} : { 'content-type': type },
        ...(body.length === 0 ? {} : { body }),
      })
      response.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'text/plain',
      })
      response.end(Buffer.from(await answer.arrayBuffer()))
    })().catch(() => {
      if (!response.headersSent) response.writeHead(502)
      response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${BACKCHANNEL_PATH}`
  return {
    url,
    server,
    target: (next) => {
      appUrl = next
    },
  }
}

/**
 * A real OpenID Provider (oidc-provider on loopback) behind the core lifecycle, for the OAuth cases of
 * the adapter suite (`OAuthTestProvider` of `@portcullis/conformance/adapters`, matched structurally:
 * core's tests do not depend on the kit). Its client registers a back-channel logout URI that reaches
 * the application the cases point it at. The lifecycle writes its security notifications in the account
 * store's transaction (a `SecurityNotifier` over the store's outbox).
 */
export async function oauthTestProvider() {
  const door = await backchannelDoor()
  const outbox = new MemoryMailOutbox()
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('notices', randomBytes(32)),
  })
  let notifier: SecurityNotifier | undefined
  const fixture = await OidcFixture.create({
    idp: { clients: [{ ...DEFAULT_CLIENT, backchannelLogoutUri: door.url }] },
    outbox,
    securityNotices: {
      entries: (accountId, change) => (notifier as SecurityNotifier).entries(accountId, change),
    },
  })
  notifier = new SecurityNotifier({
    accounts: fixture.accountStore,
    notificationSettings: new MemoryNotificationSettings(),
    outbox,
    protector,
  })
  return {
    notifications: {
      async prepare(accountId: string): Promise<void> {
        const now = new Date()
        const address = `${accountId}@example.com`
        const username = `user.${randomBytes(6).toString('hex')}`
        await fixture.accountStore.addPassword({ accountId, username, passwordHash: '$test$x', now })
        await fixture.accountStore.addEmailAddress({ accountId, address, now })
        await fixture.accountStore.verifyEmailAddress({ accountId, address, now })
      },
      async changes(accountId: string): Promise<readonly string[]> {
        const types: string[] = []
        for (const row of outbox.pending()) {
          if (row.accountId !== accountId) continue
          const message = await openOutboxMessage(protector, row)
          if (message.kind === 'security-notification') types.push(message.change.type)
        }
        return types
      },
    },
    lifecycle: fixture.lifecycle,
    stepUp: fixture.stepUp,
    async authorize(redirectUrl: string, subject: string): Promise<string> {
      fixture.browser.clearCookies()
      fixture.idp.nextLogin = { accountId: subject }
      const callback = await fixture.authorize(redirectUrl)
      return `${callback.pathname}${callback.search}`
    },
    backchannel: {
      issuer: fixture.idp.issuer,
      clientId: DEFAULT_CLIENT.clientId,
      target: door.target,
      logOut: (subject: string, sid: string) => fixture.idp.backchannelLogout(subject, sid),
      signLogoutToken: (claims: Record<string, unknown>) => fixture.idp.signLogoutToken(claims),
    },
    async close() {
      await fixture.close()
      await new Promise<void>((resolve) => {
        door.server.close(() => resolve())
        door.server.closeAllConnections()
      })
    },
  }
}
