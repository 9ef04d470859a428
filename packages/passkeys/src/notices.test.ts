import { randomBytes } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import type { SecurityEvent, SecurityNoticeSource } from '@portcullis/core/local-accounts'
import {
  MemoryMailOutbox,
  openOutboxMessage,
  type SecurityChange,
  sealOutboxMessage,
} from '@portcullis/core/mail'
import { MemoryPasskeyChallengeStore, MemoryPasskeyStore } from '@portcullis/core/passkeys'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { describe, expect, it } from 'vitest'
// By path, not as a package (see service.test.ts).
import { SoftwareAuthenticator } from '../../conformance/src/webauthn/software-authenticator.js'
import { PasskeyService } from './service.js'

const RP_ID = 'app.example'
const ORIGIN = 'https://app.example'
const SESSION = 'session:handle-1'
const T0 = Date.UTC(2031, 2, 4, 5, 6, 7)
const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$c29tZWhhc2g'
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('2031-03', randomBytes(32)),
})

/** A notice source that seals one notification per change (what `SecurityNotifier.entries` returns). */
const notices: SecurityNoticeSource = {
  entries: async (accountId: string, change: SecurityChange) => [
    await sealOutboxMessage(
      protector,
      {
        kind: 'security-notification',
        to: { address: 'alice@example.com' },
        locale: 'en',
        change,
        occurredAt: new Date(T0),
      },
      { now: new Date(T0), accountId },
    ),
  ],
}

async function world(passkeys: MemoryPasskeyStore) {
  const events: SecurityEvent[] = []
  const accounts = new MemoryAccountStore({ cascade: [passkeys] })
  await accounts.createAccount({
    accountId: 'alice',
    username: 'alice',
    passwordHash: HASH,
    now: new Date(T0),
  })
  const service = new PasskeyService({
    rpId: RP_ID,
    rpName: 'Portcullis',
    origins: [ORIGIN],
    passkeys,
    challenges: new MemoryPasskeyChallengeStore(),
    pepper: randomBytes(32),
    clock: () => T0,
    events: (event) => {
      events.push(event)
    },
    securityNotices: notices,
  })
  const register = async (authenticator: SoftwareAuthenticator) => {
    const start = await service.beginRegistration({
      accountId: 'alice',
      userName: 'alice',
      sessionBinding: SESSION,
    })
    return service.finishRegistration({
      accountId: 'alice',
      sessionBinding: SESSION,
      browserBinding: start.revealBrowserBinding(),
      response: authenticator.register(start.options),
    })
  }
  return { service, events, register }
}

async function changesIn(outbox: MemoryMailOutbox): Promise<readonly unknown[]> {
  return Promise.all(
    outbox.pending().map(async (row) => {
      const message = await openOutboxMessage(protector, row)
      return message.kind === 'security-notification' ? message.change : message.kind
    }),
  )
}

describe('passkey notifications in the change', () => {
  it('adding and removing a passkey write their notification with the change, once each', async () => {
    const outbox = new MemoryMailOutbox()
    const { service, events, register } = await world(new MemoryPasskeyStore({ outbox }))
    const authenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })
    const passkey = await register(authenticator)
    expect(await changesIn(outbox)).toEqual([{ type: 'factor-added', factor: 'passkey' }])
    // Removing a passkey the account does not have changes nothing and notifies nothing.
    const forged = { accountId: 'alice', credentialId: randomBytes(32).toString('base64url') }
    expect(await service.remove(forged)).toBe(false)
    expect(await service.remove({ accountId: 'mallory', credentialId: passkey.credentialId })).toBe(false)
    expect(outbox.pending()).toHaveLength(1)
    expect(await service.remove({ accountId: 'alice', credentialId: passkey.credentialId })).toBe(true)
    expect(await service.remove({ accountId: 'alice', credentialId: passkey.credentialId })).toBe(false)
    const changes = await changesIn(outbox)
    expect(changes).toHaveLength(2)
    expect(changes).toEqual(
      expect.arrayContaining([
        { type: 'factor-added', factor: 'passkey' },
        { type: 'factor-removed', factor: 'passkey' },
      ]),
    )
    for (const row of outbox.pending()) expect(row.accountId).toBe('alice')
    // The events say so: a SecurityNotifier sink does not enqueue them again.
    const changed = events.filter((event) => ['passkey.registered', 'passkey.removed'].includes(event.type))
    expect(changed.map((event) => event.type)).toEqual(['passkey.registered', 'passkey.removed'])
    for (const event of changed) expect(event).toMatchObject({ notified: true })
  })

  it('a passkey registered twice is refused and notified once', async () => {
    const outbox = new MemoryMailOutbox()
    const store = new MemoryPasskeyStore({ outbox })
    const { register } = await world(store)
    const authenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })
    const passkey = await register(authenticator)
    // The same credential id again (another account's copy of it, or a replayed registration).
    await expect(
      store.addPasskey(passkey, {
        outbox: await notices.entries('alice', { type: 'factor-added', factor: 'passkey' }),
      }),
    ).resolves.toBe('duplicate')
    expect(outbox.pending()).toHaveLength(1)
  })

  it('a store without an outbox refuses the change with its notification, and changes nothing', async () => {
    const store = new MemoryPasskeyStore()
    const { register } = await world(store)
    const refused = await register(new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })).then(
      () => undefined,
      (error: unknown) => error as { code?: string; cause?: { code?: string } },
    )
    expect(refused?.code).toBe('passkey.unavailable')
    expect(refused?.cause?.code).toBe('passkey.outbox_not_configured')
    expect(await store.listPasskeys('alice')).toEqual([])
  })
})
