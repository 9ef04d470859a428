// Security notifications written in the change's transaction, as docs/email.md shows them: the
// notifier given to the consent interaction, and the stores (a grant, a provider link) writing its
// entries with their change, read back from the outbox.
import { randomBytes } from 'node:crypto'
import { createInteractions } from '@portcullis/authorization-server'
import { SecurityNotifier } from '@portcullis/core/account-email'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryOAuthServerStore } from '@portcullis/core/authorization-server'
import { MemoryMailOutbox, MemoryNotificationSettings, openOutboxMessage } from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { expect, it } from 'vitest'

const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
})
const outbox = new MemoryMailOutbox()
const accounts = new MemoryAccountStore({ outbox })
const notifier = new SecurityNotifier({
  accounts,
  notificationSettings: new MemoryNotificationSettings(),
  outbox,
  protector,
})
const audit: string[] = []

// #region in-transaction
// Each service that changes a store of its own takes the notifier as `securityNotices`:
// LocalAccounts, TotpService, PasskeyService and OAuthLifecycleService({ securityNotices: notifier }),
// and the authorization server's consent interaction. The store writes the notification in the
// change's transaction, and the change's event says `notified: true` (the sink enqueues none again).
const interactions = createInteractions({
  currentUser: async () => undefined, // the application's session
  signInUrl: (returnTo) => `/sign-in?return_to=${encodeURIComponent(returnTo)}`,
  reauthentication: { url: (returnTo) => `/confirm?return_to=${returnTo}`, consume: async () => undefined },
  // "An app was connected": written with the grant an approval creates.
  securityNotices: notifier,
  // Anything else the application does once a grant is saved (its activity log).
  onConsented: (grant) => {
    audit.push(grant.clientId)
  },
})
// createAuthorizationServer({ store, interactions }): its store takes the entries with the grant.
const store = new MemoryOAuthServerStore({ accounts, outbox }) // or PostgresOAuthServerStore
// #endregion in-transaction

async function changesOf(accountId: string): Promise<unknown[]> {
  const changes: unknown[] = []
  for (const row of outbox.pending()) {
    if (row.accountId !== accountId) continue
    const message = await openOutboxMessage(protector, row)
    if (message.kind === 'security-notification') changes.push(message.change)
  }
  return changes
}

it('writes the notifications of a new grant and a new provider link with the change', async () => {
  expect(typeof interactions.handle).toBe('function')
  const accountId = 'acct-notified'
  const now = new Date()
  await accounts.createAccount({ accountId, username: 'notified', passwordHash: '$argon2id$x', now })
  await accounts.addEmailAddress({ accountId, address: 'notified@example.com', now })
  await accounts.verifyEmailAddress({ accountId, address: 'notified@example.com', now })

  // What the consent interaction hands the store when an approval creates a grant.
  const grantId = randomBytes(16).toString('base64url')
  const change = { type: 'mcp-client-connected', client: 'Notes agent' } as const
  await store.upsert(
    {
      model: 'Grant',
      id: grantId,
      payload: { jti: grantId, kind: 'Grant', accountId, clientId: 'https://notes.example/client.json' },
      expiresAt: new Date(now.getTime() + 3_600_000),
    },
    { outbox: await notifier.entries(accountId, change) },
  )
  // What OAuthLifecycleService hands the account store when an identity is linked.
  const idp = accounts.oauth({ provider: 'idp', clientId: 'app', protector })
  const linked = { type: 'identity-linked', provider: 'idp' } as const
  await idp.link({
    accountId,
    identity: { provider: 'idp', issuer: 'https://idp.example/', subject: 'user-1' },
    grant: { scopes: ['openid'] },
    now,
    outbox: await notifier.entries(accountId, linked),
  })
  // (two entries written in one millisecond come back in either order)
  const written = await changesOf(accountId)
  expect(written).toHaveLength(2)
  expect(written).toEqual(expect.arrayContaining([change, linked]))
  // The same identity again is a relink: nothing changes hands, nothing is written.
  await idp.link({
    accountId,
    identity: { provider: 'idp', issuer: 'https://idp.example/', subject: 'user-1' },
    grant: { scopes: ['openid'] },
    now,
    outbox: await notifier.entries(accountId, linked),
  })
  expect(await changesOf(accountId)).toHaveLength(2)
})
