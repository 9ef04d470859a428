import { randomBytes, randomUUID } from 'node:crypto'
import { type MailOutboxStore, type OutboxEntry, sealOutboxMessage } from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { written } from '../accounts/outbox-cases.js'
import { type Check, type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  account,
  grant,
  identity,
  linkedAccount,
  NOW,
  type OAuthAccountStoreFixture,
  rejectionCode,
} from './fixture.js'

type Case = ConformanceCase<OAuthAccountStoreFixture>
type Store = OAuthAccountStoreFixture['store']

// The store only keeps entries; any protector seals them.
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('conformance-outbox', randomBytes(32)),
})

function notice(store: Store, accountId: string, linked: boolean): Promise<OutboxEntry> {
  return sealOutboxMessage(
    protector,
    {
      kind: 'security-notification',
      to: { address: 'owner@conformance.example' },
      locale: 'en',
      change: { type: linked ? 'identity-linked' : 'identity-unlinked', provider: store.provider },
      occurredAt: NOW,
    },
    { now: NOW, accountId, id: randomUUID() },
  )
}

/** Whether `change` resolved with `happened` true; a rejection counts as not happened. */
const settle = (change: Promise<boolean>): Promise<boolean> =>
  change.catch(() => false as const).then((happened) => happened)

async function cases(fixture: OAuthAccountStoreFixture, outbox: MailOutboxStore, check: Check) {
  const { store, accountStore } = fixture
  /** Runs `change` with one fresh entry: the entry must be written exactly when the change happened. */
  const expectWrittenWith = async (
    what: string,
    accountId: string,
    linked: boolean,
    change: (entries: readonly OutboxEntry[]) => Promise<boolean>,
  ) => {
    const entry = await notice(store, accountId, linked)
    const happened = await settle(change([entry]))
    const found = (await written(outbox, [entry.id])).has(entry.id)
    check(
      found === happened,
      `${what}: the change ${happened ? 'happened' : 'did not happen'} but its notification was ${found ? '' : 'not '}written`,
    )
    return happened
  }
  const owner = await account(accountStore)
  const theirs = identity(store)
  const link =
    (accountId: string, who = theirs) =>
    async (outbox: readonly OutboxEntry[]) =>
      (await store.link({ accountId, identity: who, grant: grant(), now: NOW, outbox })).status === 'linked'
  check(
    await expectWrittenWith('linking a new identity', owner, true, link(owner)),
    'linking a new identity with its notification did not link it',
  )
  await expectWrittenWith('the owner linking the same identity again (relink)', owner, true, link(owner))
  const other = await account(accountStore)
  await expectWrittenWith('linking an identity linked to another account', other, true, link(other))
  await expectWrittenWith(
    'linking a second identity of a provider the account has linked',
    owner,
    true,
    link(owner, identity(store)),
  )
  const linked = await store.resolveLink({ accountId: owner, provider: store.provider })
  check(linked !== null, 'the linked identity is not resolved')
  if (linked === null) return
  const unlink =
    (accountId: string, providerAccountId = linked.providerAccountId) =>
    async (outbox: readonly OutboxEntry[]) =>
      (await store.unlink({ accountId, provider: store.provider, providerAccountId, outbox })).status ===
      'unlinked'
  await expectWrittenWith("unlinking another account's identity (not found)", other, false, unlink(other))
  const sole = await linkedAccount(store, undefined, { password: false })
  await expectWrittenWith(
    "unlinking an account's last way to sign in (final method)",
    sole.accountId,
    false,
    unlink(sole.accountId, sole.link.providerAccountId),
  )
  check(
    await expectWrittenWith('unlinking the identity', owner, false, unlink(owner)),
    'unlinking the identity with its notification did not unlink it',
  )
  await expectWrittenWith('unlinking it again (not found)', owner, false, unlink(owner))
  check(
    (await store.resolveLink({ accountId: owner, provider: store.provider })) === null,
    'the identity survived its unlinking',
  )
}

/** A store without an outbox: changes that carry entries are refused and change nothing. */
async function withoutOutbox(fixture: OAuthAccountStoreFixture, check: Check) {
  const { store, accountStore } = fixture
  const owner = await account(accountStore)
  const refused = await rejectionCode(
    store.link({
      accountId: owner,
      identity: identity(store),
      grant: grant(),
      now: NOW,
      outbox: [await notice(store, owner, true)],
    }),
  )
  check(refused !== undefined, 'a store without an outbox accepted a link with notification entries')
  check(
    (await store.resolveLink({ accountId: owner, provider: store.provider })) === null,
    'a refused link was stored',
  )
  const { accountId, link } = await linkedAccount(store, accountStore)
  const request = { accountId, provider: store.provider, providerAccountId: link.providerAccountId }
  check(
    (await rejectionCode(store.unlink({ ...request, outbox: [await notice(store, accountId, false)] }))) !==
      undefined,
    'a store without an outbox accepted an unlink with notification entries',
  )
  check(
    (await store.resolveLink({ accountId, provider: store.provider })) !== null,
    'a refused unlink removed the identity',
  )
}

export const outboxCases: readonly Case[] = [
  conformanceCase(
    'oauth-accounts.outbox-atomic',
    "linking and unlinking an identity write their notification in the change's transaction, and only when the change happens (not for a relink, an identity linked elsewhere, a second identity of the provider, another account's identity or the last way to sign in); a store without an outbox refuses entries and changes nothing",
    async (fixture, check) => {
      if (fixture.outbox !== undefined) return cases(fixture, fixture.outbox, check)
      return withoutOutbox(fixture, check)
    },
  ),
]
