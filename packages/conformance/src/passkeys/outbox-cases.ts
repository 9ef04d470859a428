import { randomBytes, randomUUID } from 'node:crypto'
import { type MailOutboxStore, type OutboxEntry, sealOutboxMessage } from '@portcullis/core/mail'
import type { PasskeyStore } from '@portcullis/core/passkeys'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { written } from '../accounts/outbox-cases.js'
import { type Check, type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { type PasskeyStoreFixture, passkey, T0 } from './fixture.js'

type Case = ConformanceCase<PasskeyStoreFixture>

// The store only keeps entries; any protector seals them.
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('conformance-outbox', randomBytes(32)),
})

function notice(accountId: string, added: boolean): Promise<OutboxEntry> {
  return sealOutboxMessage(
    protector,
    {
      kind: 'security-notification',
      to: { address: 'owner@conformance.example' },
      locale: 'en',
      change: { type: added ? 'factor-added' : 'factor-removed', factor: 'passkey' },
      occurredAt: T0,
    },
    { now: T0, accountId, id: randomUUID() },
  )
}

const account = () => `acct-${randomUUID()}`

async function cases(store: PasskeyStore, outbox: MailOutboxStore, check: Check) {
  const accountId = account()
  const saved = passkey({ accountId })
  /** Runs `change` with one fresh entry: the entry must be written exactly when the change happened. */
  const expectWrittenWith = async (
    what: string,
    added: boolean,
    change: (entries: readonly OutboxEntry[]) => Promise<boolean>,
  ) => {
    const entry = await notice(accountId, added)
    const happened = await change([entry])
    const found = (await written(outbox, [entry.id])).has(entry.id)
    check(
      found === happened,
      `${what}: the change ${happened ? 'happened' : 'did not happen'} but its notification was ${found ? '' : 'not '}written`,
    )
  }
  const add = (credential: typeof saved) => async (entries: readonly OutboxEntry[]) =>
    (await store.addPasskey(credential, { outbox: entries })) === 'added'
  const remove = (who: string) => async (entries: readonly OutboxEntry[]) =>
    (await store.removePasskey({ accountId: who, credentialId: saved.credentialId }, { outbox: entries })) ===
    'removed'
  await expectWrittenWith('adding a passkey', true, add(saved))
  await expectWrittenWith(
    'adding a stored credential id again (duplicate)',
    true,
    add({ ...saved, accountId: account() }),
  )
  await expectWrittenWith("removing another account's passkey (not found)", false, remove(account()))
  await expectWrittenWith('removing the passkey', false, remove(accountId))
  await expectWrittenWith('removing it again (not found)', false, remove(accountId))
  check((await store.findPasskey(saved.credentialId)) === null, 'the passkey survived its removal')
}

export const outboxCases: readonly Case[] = [
  conformanceCase(
    'passkey.outbox-atomic',
    "adding and removing a passkey write their notification in the change's transaction, and only when the change happens (not for a duplicate or a passkey the account does not have); a store without an outbox refuses entries and changes nothing",
    async (fixture, check) => {
      const { store, outbox } = fixture
      if (outbox !== undefined) return cases(store, outbox, check)
      const accountId = account()
      const saved = passkey({ accountId })
      const refusedWith = async (change: () => Promise<unknown>) =>
        change().then(
          () => false,
          () => true,
        )
      check(
        await refusedWith(async () => store.addPasskey(saved, { outbox: [await notice(accountId, true)] })),
        'a store without an outbox accepted a passkey with notification entries',
      )
      check((await store.findPasskey(saved.credentialId)) === null, 'a refused addition stored the passkey')
      await store.addPasskey(saved)
      const request = { accountId, credentialId: saved.credentialId }
      check(
        await refusedWith(async () =>
          store.removePasskey(request, { outbox: [await notice(accountId, false)] }),
        ),
        'a store without an outbox accepted a removal with notification entries',
      )
      check((await store.findPasskey(saved.credentialId)) !== null, 'a refused removal removed the passkey')
    },
  ),
]
