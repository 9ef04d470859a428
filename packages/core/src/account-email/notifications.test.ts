import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { MemoryAccountStore } from '../accounts/memory-store.js'
import type { SecurityEvent } from '../local-accounts/security-events.js'
import { MemoryNotificationSettings } from '../mail/memory-notification-settings.js'
import { MemoryMailOutbox } from '../mail/memory-outbox.js'
import type { SecurityNotificationMessage } from '../mail/messages.js'
import { openOutboxMessage } from '../mail/outbox-seal.js'
import { AESGCMOAuthTransactionProtector } from '../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../protection/key.js'
import { SecurityNotifier } from './notifications.js'

const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
})
const NOW = Date.UTC(2031, 2, 4, 5, 6, 7)

async function world(options: { verified?: boolean } = {}) {
  const outbox = new MemoryMailOutbox()
  const accounts = new MemoryAccountStore()
  const settings = new MemoryNotificationSettings()
  const created = await accounts.createAccount({
    accountId: 'acct-1',
    username: 'alice',
    passwordHash: '$scrypt$test',
    now: new Date(NOW),
  })
  expect(created.outcome).toBe('created')
  await accounts.addEmailAddress({ accountId: 'acct-1', address: 'alice@example.com', now: new Date(NOW) })
  if (options.verified !== false) {
    await accounts.verifyEmailAddress({
      accountId: 'acct-1',
      address: 'alice@example.com',
      now: new Date(NOW),
    })
  }
  const errors: unknown[] = []
  const notifier = new SecurityNotifier({
    accounts,
    notificationSettings: settings,
    outbox,
    protector,
    reviewLink: 'https://app.example/account/security',
    clock: () => NOW,
    onError: (error) => errors.push(error),
  })
  const messages = async () =>
    Promise.all(
      outbox
        .pending()
        .map(async (row) => (await openOutboxMessage(protector, row)) as SecurityNotificationMessage),
    )
  return { outbox, accounts, settings, notifier, messages, errors }
}

const event = (fields: Record<string, unknown>) => ({ at: new Date(NOW), ...fields }) as SecurityEvent

describe('SecurityNotifier', () => {
  it('seals a security notification to the verified primary address; the row shows no address', async () => {
    const { notifier, outbox, messages } = await world()
    expect(await notifier.notify('acct-1', { type: 'factor-added', factor: 'totp' })).toBe(true)
    const [message] = await messages()
    expect(message).toMatchObject({
      kind: 'security-notification',
      to: { address: 'alice@example.com' },
      change: { type: 'factor-added', factor: 'totp' },
      reviewLink: 'https://app.example/account/security',
    })
    expect(message?.occurredAt).toEqual(new Date(NOW))
    const row = outbox.pending()[0]
    expect(row?.kind).toBe('security-notification')
    expect(JSON.stringify(row)).not.toContain('alice@example.com')
  })

  it('respects an opt-out of that kind only', async () => {
    const { notifier, settings, messages } = await world()
    await settings.setOptOuts({ accountId: 'acct-1', optOuts: ['factor-added'], now: new Date(NOW) })
    expect(await notifier.notify('acct-1', { type: 'factor-added', factor: 'passkey' })).toBe(false)
    expect(await notifier.entries('acct-1', { type: 'factor-added', factor: 'totp' })).toEqual([])
    expect(await notifier.notify('acct-1', { type: 'factor-removed', factor: 'passkey' })).toBe(true)
    expect((await messages()).map((message) => message.change.type)).toEqual(['factor-removed'])
  })

  it('sends nothing to an unverified primary address, and to explicit recipients when given', async () => {
    const { notifier, messages } = await world({ verified: false })
    expect(await notifier.notify('acct-1', { type: 'password-changed' })).toBe(false)
    expect(
      await notifier.notify(
        'acct-1',
        { type: 'address-changed', address: 'new@example.com' },
        { to: ['old@example.com'] },
      ),
    ).toBe(true)
    expect((await messages()).map((message) => message.to.address)).toEqual(['old@example.com'])
  })

  it('turns the security events of other stores into notifications and passes every event on', async () => {
    const { notifier, messages } = await world()
    const seen: string[] = []
    const sink = notifier.sink((each) => {
      seen.push(each.type)
    })
    sink(event({ type: 'passkey.registered', accountId: 'acct-1', credentialId: 'cred' }))
    sink(event({ type: 'totp.disabled', accountId: 'acct-1' }))
    sink(event({ type: 'recovery_codes.regenerated', accountId: 'acct-1' }))
    sink(event({ type: 'oauth.linked', accountId: 'acct-1', provider: 'google', relinked: false }))
    sink(event({ type: 'oauth.linked', accountId: 'acct-1', provider: 'google', relinked: true }))
    sink(event({ type: 'oauth.unlinked', accountId: 'acct-1', provider: 'google' }))
    sink(event({ type: 'login.succeeded', accountId: 'acct-1' }))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(seen).toHaveLength(7)
    expect(
      (await messages())
        .map((message) => message.change)
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ).toEqual([
      { type: 'factor-added', factor: 'passkey' },
      { type: 'factor-added', factor: 'recovery-codes' },
      { type: 'factor-removed', factor: 'totp' },
      { type: 'identity-linked', provider: 'google' },
      { type: 'identity-unlinked', provider: 'google' },
    ])
  })

  it('enqueues nothing for an event whose change wrote its notification already (notified), and passes it on', async () => {
    const { notifier, messages } = await world()
    const seen: string[] = []
    const sink = notifier.sink((each) => {
      seen.push(each.type)
    })
    sink(event({ type: 'totp.enabled', accountId: 'acct-1', notified: true }))
    sink(event({ type: 'totp.disabled', accountId: 'acct-1', notified: true }))
    sink(event({ type: 'recovery_codes.regenerated', accountId: 'acct-1', notified: true }))
    sink(event({ type: 'passkey.registered', accountId: 'acct-1', credentialId: 'cred', notified: true }))
    sink(event({ type: 'passkey.removed', accountId: 'acct-1', credentialId: 'cred', notified: true }))
    sink(
      event({ type: 'oauth.linked', accountId: 'acct-1', provider: 'idp', relinked: false, notified: true }),
    )
    sink(event({ type: 'oauth.unlinked', accountId: 'acct-1', provider: 'idp', notified: true }))
    sink(event({ type: 'totp.enabled', accountId: 'acct-1' }))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(seen).toHaveLength(8)
    expect((await messages()).map((message) => message.change)).toEqual([
      { type: 'factor-added', factor: 'totp' },
    ])
  })

  it('never throws from the sink when the outbox fails; the error goes to onError', async () => {
    const { accounts, settings } = await world()
    const errors: unknown[] = []
    const broken = new SecurityNotifier({
      accounts,
      notificationSettings: settings,
      outbox: {
        enqueue: async () => {
          throw new Error('outbox down')
        },
      } as unknown as MemoryMailOutbox,
      protector,
      onError: (error, change) => errors.push([String(error), change]),
    })
    const sink = broken.sink()
    expect(() => sink(event({ type: 'totp.enabled', accountId: 'acct-1' }))).not.toThrow()
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(errors).toEqual([['Error: outbox down', 'factor-added']])
  })
})
