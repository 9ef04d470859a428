import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { localFixture } from '../../../test/support/local-accounts.js'
import { SecurityNotifier } from '../../account-email/notifications.js'
import { MemoryAccountStore } from '../../accounts/memory-store.js'
import { MemoryNotificationSettings } from '../../mail/memory-notification-settings.js'
import { MemoryMailOutbox } from '../../mail/memory-outbox.js'
import { openOutboxMessage } from '../../mail/outbox-seal.js'
import { AESGCMOAuthTransactionProtector } from '../../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../../protection/key.js'

const PASSWORD = 'correct horse battery staple'
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
})

async function world() {
  const outbox = new MemoryMailOutbox()
  const accounts = new MemoryAccountStore({ outbox })
  const notificationSettings = new MemoryNotificationSettings()
  const notifier = new SecurityNotifier({ accounts, notificationSettings, outbox, protector })
  const fixture = await localFixture({ accounts, securityNotices: notifier })
  const { accountId } = await fixture.local.register({ username: 'alice', password: PASSWORD })
  const now = new Date(fixture.clock())
  await accounts.addEmailAddress({ accountId, address: 'alice@example.com', now })
  await accounts.verifyEmailAddress({ accountId, address: 'alice@example.com', now })
  const messages = () => Promise.all(outbox.pending().map((row) => openOutboxMessage(protector, row)))
  return { ...fixture, accounts, outbox, notificationSettings, accountId, messages }
}

describe('security notifications of password changes', () => {
  it('a password change writes a password-changed notification with the change', async () => {
    const w = await world()
    await w.local.changePassword({
      accountId: w.accountId,
      body: { currentPassword: PASSWORD, newPassword: 'another long passphrase here' },
      credentials: {},
    })
    expect(await w.messages()).toMatchObject([
      {
        kind: 'security-notification',
        to: { address: 'alice@example.com' },
        change: { type: 'password-changed' },
      },
    ])
  })

  it('a refused change writes nothing, and an opted-out kind is not written', async () => {
    const w = await world()
    const wrong = await w.local
      .changePassword({
        accountId: w.accountId,
        body: { currentPassword: 'not the password', newPassword: 'another long passphrase here' },
        credentials: {},
      })
      .catch((error: { code?: string }) => error.code)
    expect(wrong).toBe('local.invalid_credentials')
    expect(w.outbox.pending()).toEqual([])
    await w.notificationSettings.setOptOuts({
      accountId: w.accountId,
      optOuts: ['password-changed'],
      now: new Date(w.clock()),
    })
    await w.local.changePassword({
      accountId: w.accountId,
      body: { currentPassword: PASSWORD, newPassword: 'another long passphrase here' },
      credentials: {},
    })
    expect(w.outbox.pending()).toEqual([])
  })

  it("the administrator's reset writes a password-reset notification", async () => {
    const w = await world()
    expect(await w.local.resetPassword(w.accountId, 'a fresh long passphrase')).toBe(true)
    expect(
      (await w.messages()).map((message) => message.kind === 'security-notification' && message.change),
    ).toEqual([{ type: 'password-reset' }])
  })
})
