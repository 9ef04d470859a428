// Linking and unlinking a provider identity write their security notification in the account store's
// transaction (the lifecycle's `securityNotices`), only when the change happens, against a real IdP.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SecurityNotifier } from '../../src/account-email/notifications.js'
import { MemoryNotificationSettings } from '../../src/mail/memory-notification-settings.js'
import { MemoryMailOutbox } from '../../src/mail/memory-outbox.js'
import { openOutboxMessage } from '../../src/mail/outbox-seal.js'
import type { LocalSession } from '../../src/oidc/lifecycle-types.js'
import { AESGCMOAuthTransactionProtector } from '../../src/protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../../src/protection/key.js'
import { OidcFixture, PROVIDER, sessionOf } from './support/fixture.js'

const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('notices', randomBytes(32)),
})

describe('identity link and unlink notifications in the change', () => {
  let fixture: OidcFixture
  const outbox = new MemoryMailOutbox()
  const settings = new MemoryNotificationSettings()
  let notifier: SecurityNotifier | undefined

  beforeAll(async () => {
    fixture = await OidcFixture.create({
      outbox,
      securityNotices: {
        entries: (accountId, change) => (notifier as SecurityNotifier).entries(accountId, change),
      },
    })
    notifier = new SecurityNotifier({
      accounts: fixture.accountStore,
      notificationSettings: settings,
      outbox,
      protector,
    })
  })
  afterAll(async () => {
    await fixture.close()
  })

  async function personWithAddress(accountId: string): Promise<LocalSession> {
    await fixture.passwordAccount(accountId)
    const address = `${accountId}@example.com`
    const now = new Date()
    await fixture.accountStore.addEmailAddress({ accountId, address, now })
    await fixture.accountStore.verifyEmailAddress({ accountId, address, now })
    return sessionOf(accountId)
  }

  async function credential(session: LocalSession, purpose: string): Promise<string> {
    const issued = await fixture.stepUp.issue({
      accountId: session.accountId,
      purpose,
      securityEpoch: session.securityEpoch,
      sessionBinding: session.sessionHandle,
    })
    return issued.reveal()
  }

  async function link(session: LocalSession, subject: string) {
    fixture.browser.clearCookies()
    fixture.idp.nextLogin = { accountId: subject }
    const stepUpToken = await credential(session, 'oauth-link')
    const begun = await fixture.lifecycle.begin({
      operation: 'link',
      provider: PROVIDER,
      session,
      stepUpToken,
    })
    return fixture.lifecycle.complete({
      provider: PROVIDER,
      callback: await fixture.authorize(begun.redirectUrl),
      browserBinding: begun.browserBinding,
      session,
    })
  }

  /** The changes in the outbox for the account, oldest first. */
  async function changesOf(accountId: string): Promise<unknown[]> {
    const changes: unknown[] = []
    for (const row of outbox.pending()) {
      if (row.accountId !== accountId) continue
      const message = await openOutboxMessage(protector, row)
      changes.push(message.kind === 'security-notification' ? message.change : message.kind)
    }
    return changes
  }

  it('says it writes the notifications, so the routes mark their events notified', () => {
    expect(fixture.lifecycle.writesSecurityNotices).toBe(true)
  })

  it('a new link is notified once; a relink, a link of an identity owned elsewhere are not', async () => {
    const session = await personWithAddress('linker-1')
    expect(await link(session, 'dana')).toMatchObject({ status: 'linked' })
    expect(await changesOf('linker-1')).toEqual([{ type: 'identity-linked', provider: PROVIDER }])
    expect(await link(session, 'dana')).toMatchObject({ status: 'relinked' })
    expect(await changesOf('linker-1')).toHaveLength(1)
    const other = await personWithAddress('linker-2')
    await expect(link(other, 'dana')).rejects.toMatchObject({ conflict: 'identity-linked-elsewhere' })
    expect(await changesOf('linker-2')).toEqual([])
  })

  it('an unlink is notified once; an unlink of a link the account does not own is not', async () => {
    const session = await personWithAddress('unlinker-1')
    const linked = await link(session, 'eve')
    if (linked.operation !== 'link') throw new Error('expected a link outcome')
    const intruder = await personWithAddress('unlinker-2')
    const forged = await fixture.lifecycle.unlink({
      provider: PROVIDER,
      session: intruder,
      providerAccountId: linked.providerAccountId,
      stepUpToken: await credential(intruder, 'oauth-unlink'),
    })
    expect(forged).toEqual({ status: 'not-found' })
    expect(await changesOf('unlinker-2')).toEqual([])
    const outcome = await fixture.lifecycle.unlink({
      provider: PROVIDER,
      session,
      providerAccountId: linked.providerAccountId,
      stepUpToken: await credential(session, 'oauth-unlink'),
    })
    expect(outcome).toMatchObject({ status: 'unlinked' })
    expect(await changesOf('unlinker-1')).toEqual([
      { type: 'identity-linked', provider: PROVIDER },
      { type: 'identity-unlinked', provider: PROVIDER },
    ])
  })

  it('an account that turned the kinds off gets no message, and the change still happens', async () => {
    const session = await personWithAddress('quiet-1')
    await settings.setOptOuts({
      accountId: 'quiet-1',
      optOuts: ['identity-linked', 'identity-unlinked'],
      now: new Date(),
    })
    const linked = await link(session, 'frank')
    expect(linked).toMatchObject({ status: 'linked' })
    if (linked.operation !== 'link') throw new Error('expected a link outcome')
    const outcome = await fixture.lifecycle.unlink({
      provider: PROVIDER,
      session,
      providerAccountId: linked.providerAccountId,
      stepUpToken: await credential(session, 'oauth-unlink'),
    })
    expect(outcome).toMatchObject({ status: 'unlinked' })
    expect(await changesOf('quiet-1')).toEqual([])
  })
})
