import { randomBytes, randomUUID } from 'node:crypto'
import { type MailOutboxStore, type OutboxEntry, sealOutboxMessage } from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import type { TotpStore } from '@portcullis/core/totp'
import { written } from '../accounts/outbox-cases.js'
import { type Check, type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { account, digests, enable, sealed, T0, type TotpStoreFixture } from './fixture.js'

type Case = ConformanceCase<TotpStoreFixture>

// The store only keeps entries; any protector seals them.
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('conformance-outbox', randomBytes(32)),
})

function notice(accountId: string, factor: 'totp' | 'recovery-codes', added: boolean): Promise<OutboxEntry> {
  return sealOutboxMessage(
    protector,
    {
      kind: 'security-notification',
      to: { address: 'owner@conformance.example' },
      locale: 'en',
      change: { type: added ? 'factor-added' : 'factor-removed', factor },
      occurredAt: T0,
    },
    { now: T0, accountId, id: randomUUID() },
  )
}

/** Runs `change` with one fresh entry: the entry must be written exactly when the change happened. */
async function expectWrittenWith(
  outbox: MailOutboxStore,
  check: Check,
  what: string,
  entry: OutboxEntry,
  change: (outbox: readonly OutboxEntry[]) => Promise<boolean>,
): Promise<void> {
  const happened = await change([entry])
  const found = (await written(outbox, [entry.id])).has(entry.id)
  check(
    found === happened,
    `${what}: the change ${happened ? 'happened' : 'did not happen'} but its notification was ${found ? '' : 'not '}written`,
  )
}

async function cases(store: TotpStore, outbox: MailOutboxStore, check: Check) {
  const accountId = account()
  const secret = sealed()
  await store.savePendingTotp({ accountId, sealedSecret: secret, now: T0 })
  const enableWith = (sealedSecret: string) => (entries: readonly OutboxEntry[]) =>
    store.enableTotp({
      accountId,
      sealedSecret,
      step: 1000,
      recoveryCodeDigests: digests(2),
      now: new Date(T0.getTime() + 1000),
      outbox: entries,
    })
  type Change = (outbox: readonly OutboxEntry[]) => Promise<boolean>
  const w = (what: string, factor: 'totp' | 'recovery-codes', added: boolean, run: Change) =>
    notice(accountId, factor, added).then((entry) => expectWrittenWith(outbox, check, what, entry, run))
  await w('enabling with another secret (refused)', 'totp', true, enableWith(sealed()))
  await w('enabling', 'totp', true, enableWith(secret))
  const replace = (id: string) => (entries: readonly OutboxEntry[]) =>
    store.replaceRecoveryCodes({ accountId: id, digests: digests(3), now: T0, outbox: entries })
  await w('replacing the recovery codes', 'recovery-codes', true, replace(accountId))
  await w(
    'replacing the codes of an account without TOTP (refused)',
    'recovery-codes',
    true,
    replace(account()),
  )
  const remove = (id: string) => (entries: readonly OutboxEntry[]) =>
    store.removeTotp(id, { outbox: entries })
  await w('removing TOTP', 'totp', false, remove(accountId))
  await w('removing TOTP again (nothing to remove)', 'totp', false, remove(accountId))
  check((await store.getTotpEnrollment(accountId)) === null, 'the enrollment survived its removal')
}

export const outboxCases: readonly Case[] = [
  conformanceCase(
    'totp.outbox-atomic',
    "enabling TOTP, replacing the recovery codes and removing TOTP write their notification in the change's transaction, and only when the change happens; a store without an outbox refuses entries and changes nothing",
    async (fixture, check) => {
      const { store, outbox } = fixture
      if (outbox !== undefined) return cases(store, outbox, check)
      const accountId = account()
      const secret = await enable(store, accountId)
      let refused = false
      try {
        await store.removeTotp(accountId, { outbox: [await notice(accountId, 'totp', false)] })
      } catch {
        refused = true
      }
      check(refused, 'a store without an outbox accepted a removal with notification entries')
      check(
        (await store.getTotpEnrollment(accountId))?.sealedSecret === secret,
        'a refused removal (entries without an outbox) removed the enrollment',
      )
    },
  ),
]
