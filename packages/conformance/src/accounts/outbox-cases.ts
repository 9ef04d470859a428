import { randomUUID } from 'node:crypto'
import type { AccountStore } from '@portcullis/core/accounts'
import { type MailOutboxStore, type OutboxEntry, sealOutboxMessage } from '@portcullis/core/mail'
import { at, expectCode, passwordHash, T0, unique, username } from '../local-accounts/fixture.js'
import { type Check, type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { type AccountStoreFixture, passwordAccount } from './fixture.js'

type Case = ConformanceCase<AccountStoreFixture>

/** Far enough after every entry's `createdAt` that each is due. */
const LATER = new Date(T0.getTime() + 366 * 86_400_000)

async function entry(fixture: AccountStoreFixture, accountId: string | null): Promise<OutboxEntry> {
  return sealOutboxMessage(
    fixture.protector,
    {
      kind: 'security-notification',
      to: { address: 'owner@conformance.example' },
      locale: 'en',
      change: { type: 'password-changed' },
      occurredAt: T0,
    },
    { now: T0, accountId, id: randomUUID() },
  )
}

/** Which of `ids` the outbox holds (claimed, then completed, so later cases never see them). */
export async function written(outbox: MailOutboxStore, ids: readonly string[]): Promise<Set<string>> {
  const wanted = new Set(ids)
  const found = new Set<string>()
  for (let round = 0; round < 20; round++) {
    const rows = await outbox.claim({
      now: new Date(LATER.getTime() + round * 7_200_000),
      limit: 1000,
      leaseSeconds: 3600,
    })
    for (const row of rows) {
      if (!wanted.has(row.id)) continue
      found.add(row.id)
      await outbox.complete([row.id])
    }
    if (rows.length < 1000) break
  }
  return found
}

/** Runs `change` with one fresh entry; checks the entry was written exactly when `expected`. */
async function expectWritten(
  fixture: AccountStoreFixture,
  outbox: MailOutboxStore,
  check: Check,
  what: string,
  accountId: string | null,
  change: (outbox: readonly OutboxEntry[]) => Promise<unknown>,
  expected: (result: unknown) => boolean,
): Promise<void> {
  const message = await entry(fixture, accountId)
  const result = await change([message])
  const happened = expected(result)
  const found = (await written(outbox, [message.id])).has(message.id)
  check(
    found === happened,
    `${what}: the change ${happened ? 'happened' : 'did not happen'} but its message was ${found ? '' : 'not '}written`,
  )
}

const outcome = (name: string) => (result: unknown) =>
  (result as { outcome?: string } | null)?.outcome === name

async function changes(
  fixture: AccountStoreFixture,
  outbox: MailOutboxStore,
  check: Check,
  store: AccountStore,
) {
  const { accountId, username: taken } = await passwordAccount(store)
  const before = await store.findPassword({ accountId })
  const w = (
    what: string,
    id: string | null,
    change: (o: readonly OutboxEntry[]) => Promise<unknown>,
    ok: (r: unknown) => boolean,
  ) => expectWritten(fixture, outbox, check, what, id, change, ok)
  const created = unique('account')
  await w(
    'createAccount with a taken username',
    null,
    (o) =>
      store.createAccount({
        accountId: unique('account'),
        username: taken,
        passwordHash: passwordHash(),
        now: T0,
        outbox: o,
      }),
    () => false,
  )
  await w(
    'createAccount',
    created,
    (o) =>
      store.createAccount({
        accountId: created,
        username: username(),
        passwordHash: passwordHash(),
        now: T0,
        outbox: o,
      }),
    outcome('created'),
  )
  await w(
    'setPassword with a stale expectedPasswordHash',
    accountId,
    (o) =>
      store.setPassword({
        accountId,
        passwordHash: passwordHash('new'),
        now: at(1),
        bumpEpoch: true,
        expectedPasswordHash: passwordHash('stale'),
        outbox: o,
      }),
    () => false,
  )
  const after = await store.findPassword({ accountId })
  check(after?.passwordHash === before?.passwordHash, 'a stale compare-and-swap changed the password')
  await w(
    'setPassword',
    accountId,
    (o) =>
      store.setPassword({
        accountId,
        passwordHash: passwordHash('new'),
        now: at(2),
        bumpEpoch: true,
        expectedPasswordHash: before?.passwordHash,
        outbox: o,
      }),
    (r) => r !== null,
  )
  await w(
    'addPassword to an account that has one',
    accountId,
    (o) =>
      store.addPassword({
        accountId,
        username: username(),
        passwordHash: passwordHash(),
        now: at(3),
        outbox: o,
      }),
    () => false,
  )
  await w(
    'removePassword of the last method',
    accountId,
    (o) => store.removePassword({ accountId, now: at(4), outbox: o }),
    () => false,
  )
  await w(
    'bumpSecurityEpoch of an unknown account',
    null,
    (o) => store.bumpSecurityEpoch({ accountId: unique('missing'), now: at(5), outbox: o }),
    () => false,
  )
  await w(
    'bumpSecurityEpoch',
    accountId,
    (o) => store.bumpSecurityEpoch({ accountId, now: at(6), outbox: o }),
    (r) => typeof r === 'number',
  )
  await w(
    'setAccountStatus of an unknown account',
    null,
    (o) =>
      store.setAccountStatus({ accountId: unique('missing'), status: 'disabled', now: at(7), outbox: o }),
    () => false,
  )
  await w(
    'setAccountStatus',
    accountId,
    (o) => store.setAccountStatus({ accountId, status: 'active', now: at(7), outbox: o }),
    (r) => r !== null,
  )
  const address = `${unique('person')}@conformance.example`
  await w(
    'addEmailAddress',
    accountId,
    (o) => store.addEmailAddress({ accountId, address, now: at(8), outbox: o }),
    outcome('added'),
  )
  await w(
    'addEmailAddress of an address the account has',
    accountId,
    (o) => store.addEmailAddress({ accountId, address, now: at(9), outbox: o }),
    () => false,
  )
  await w(
    'verifyEmailAddress of an address the account lacks',
    accountId,
    (o) =>
      store.verifyEmailAddress({
        accountId,
        address: `${unique('other')}@conformance.example`,
        now: at(10),
        outbox: o,
      }),
    () => false,
  )
  const second = `${unique('second')}@conformance.example`
  await store.addEmailAddress({ accountId, address: second, now: at(10) })
  await w(
    'setPrimaryEmailAddress of an unverified address',
    accountId,
    (o) => store.setPrimaryEmailAddress({ accountId, address: second, now: at(11), outbox: o }),
    () => false,
  )
  await w(
    'verifyEmailAddress',
    accountId,
    (o) =>
      store.verifyEmailAddress({ accountId, address: second, now: at(12), makePrimary: true, outbox: o }),
    outcome('verified'),
  )
  await w(
    'removeEmailAddress of the primary address while others remain',
    accountId,
    (o) => store.removeEmailAddress({ accountId, address: second, now: at(13), outbox: o }),
    () => false,
  )
  await w(
    'setPrimaryEmailAddress',
    accountId,
    (o) => store.setPrimaryEmailAddress({ accountId, address: second, now: at(14), outbox: o }),
    outcome('set'),
  )
  await w(
    'removeEmailAddress',
    accountId,
    (o) => store.removeEmailAddress({ accountId, address, now: at(15), outbox: o }),
    outcome('removed'),
  )
}

export const outboxCases: readonly Case[] = [
  conformanceCase(
    'accounts.outbox.iff-commit',
    'every change request writes its outbox entries in its transaction exactly when the change happens (a stale compare-and-swap, a taken username, an unknown account or a refused removal writes no message); a store without an outbox refuses entries and changes nothing',
    async (fixture, check) => {
      const { store, outbox } = fixture
      if (outbox !== undefined) {
        await changes(fixture, outbox, check, store)
        return
      }
      const { accountId } = await passwordAccount(store)
      const before = await store.getAccount(accountId)
      let refused = false
      try {
        await store.bumpSecurityEpoch({ accountId, now: at(1), outbox: [await entry(fixture, accountId)] })
      } catch {
        refused = true
      }
      const after = await store.getAccount(accountId)
      check(refused, 'a store without an outbox accepted a change that carries messages (they would be lost)')
      check(after?.securityEpoch === before?.securityEpoch, 'the refused change moved the epoch')
    },
  ),
  conformanceCase(
    'accounts.outbox.bad-entries',
    'a malformed outbox entry, or one whose id is stored already, is a typed error and nothing of the change is written',
    async (fixture, check) => {
      const { store, outbox } = fixture
      const { accountId } = await passwordAccount(store)
      const epoch = async () => (await store.getAccount(accountId))?.securityEpoch
      const start = await epoch()
      const good = await entry(fixture, accountId)
      for (const [what, bad] of [
        ['an id that is not a UUID', { ...good, id: 'not-a-uuid' }],
        ['an unknown kind', { ...good, kind: 'newsletter' }],
        ['a blank envelope', { ...good, envelope: '' }],
        ['an invalid date', { ...good, createdAt: new Date(Number.NaN) }],
      ] as const) {
        await expectCode(
          check,
          store.bumpSecurityEpoch({ accountId, now: at(1), outbox: [bad as unknown as OutboxEntry] }),
          'mail.invalid_outbox_entry',
          what,
        )
      }
      await expectCode(
        check,
        store.bumpSecurityEpoch({ accountId, now: at(1), outbox: [good, good] }),
        'mail.duplicate_outbox_entry',
        'two entries with one id',
      )
      check((await epoch()) === start, 'a refused request moved the epoch')
      if (outbox === undefined) return
      await outbox.enqueue([good])
      await expectCode(
        check,
        store.bumpSecurityEpoch({ accountId, now: at(2), outbox: [good] }),
        'mail.duplicate_outbox_entry',
        'an entry whose id the outbox holds',
      )
      check((await epoch()) === start, 'a change whose entry could not be written moved the epoch anyway')
      await written(outbox, [good.id])
    },
  ),
]
