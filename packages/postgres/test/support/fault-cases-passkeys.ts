import { randomBytes, randomUUID } from 'node:crypto'
import { type OutboxEntry, sealOutboxMessage } from '@portcullis/core/mail'
import type { PasskeyCredential } from '@portcullis/core/passkeys'
import { PostgresPasskeyStore } from '../../src/index.js'
import { type FaultCase, type FaultKit, partial } from './faults.js'

/**
 * Cut cases for passkeys: adding and removing a passkey write their notification in the same
 * transaction; parked on the outbox table (after the passkey row is written or deleted), a cut leaves
 * both or neither, never a change without its notification or a notification of a change that did not
 * happen.
 */
export function passkeyFaultCases(kit: FaultKit): readonly FaultCase[] {
  const { db, protector, one } = kit
  const credential = (accountId: string, now: Date): PasskeyCredential => ({
    credentialId: randomBytes(32).toString('base64url'),
    accountId,
    publicKey: new Uint8Array(randomBytes(77)),
    counter: 0,
    transports: ['internal'],
    deviceType: 'multiDevice',
    backedUp: true,
    name: 'Laptop',
    createdAt: now,
    lastUsedAt: null,
    suspendedAt: null,
  })
  const notice = (accountId: string, now: Date, added: boolean): Promise<OutboxEntry> =>
    sealOutboxMessage(
      protector,
      {
        kind: 'security-notification',
        to: { address: 'owner@fault.example' },
        locale: 'en',
        change: { type: added ? 'factor-added' : 'factor-removed', factor: 'passkey' },
        occurredAt: now,
      },
      { now, accountId },
    )
  const outcome = async (credentialId: string, entry: OutboxEntry, changedIfStored: boolean) => {
    const setup = new PostgresPasskeyStore({ client: db.client })
    const stored = (await setup.findPasskey(credentialId)) !== null
    const row = await one<{ id: string }>('select id::text as id from portcullis_mail_outbox where id = $1', [
      entry.id,
    ])
    const changed = stored === changedIfStored
    if (changed && row !== undefined) return 'written' as const
    if (!changed && row === undefined) return 'untouched' as const
    return partial(`passkey ${stored ? 'stored' : 'absent'}, notification ${row ? 'written' : 'absent'}`)
  }
  return [
    {
      name: 'passkey added with its notification in the outbox',
      table: 'portcullis_mail_outbox',
      multiStatement: true,
      async prepare(client) {
        const now = new Date()
        const passkey = credential(`fault-${randomUUID()}`, now)
        const entry = await notice(passkey.accountId, now, true)
        const store = new PostgresPasskeyStore({ client })
        return {
          run: () => store.addPasskey(passkey, { outbox: [entry] }),
          check: () => outcome(passkey.credentialId, entry, true),
        }
      },
    },
    {
      name: 'passkey removed with its notification in the outbox',
      table: 'portcullis_mail_outbox',
      multiStatement: true,
      async prepare(client) {
        const now = new Date()
        const passkey = credential(`fault-${randomUUID()}`, now)
        await new PostgresPasskeyStore({ client: db.client }).addPasskey(passkey)
        const entry = await notice(passkey.accountId, now, false)
        const store = new PostgresPasskeyStore({ client })
        const request = { accountId: passkey.accountId, credentialId: passkey.credentialId }
        return {
          run: () => store.removePasskey(request, { outbox: [entry] }),
          check: () => outcome(passkey.credentialId, entry, false),
        }
      },
    },
  ]
}
