import { randomBytes, randomUUID } from 'node:crypto'
import type { OAuthServerEntry } from '@portcullis/core/authorization-server'
import { type MailOutboxStore, type OutboxEntry, sealOutboxMessage } from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { written } from '../accounts/outbox-cases.js'
import { type Check, type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  freshAccount,
  grantEntry,
  grantToken,
  type OAuthServerStoreContext,
  type OAuthServerStoreFixture,
  type SuiteClock,
} from './fixture.js'

type Case = ConformanceCase<OAuthServerStoreContext>

// The store only keeps entries; any protector seals them.
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('conformance-outbox', randomBytes(32)),
})

function notice(accountId: string, clock: SuiteClock): Promise<OutboxEntry> {
  return sealOutboxMessage(
    protector,
    {
      kind: 'security-notification',
      to: { address: 'owner@conformance.example' },
      locale: 'en',
      change: { type: 'mcp-client-connected', client: 'Conformance client' },
      occurredAt: clock.now,
    },
    { now: clock.now, accountId, id: randomUUID() },
  )
}

const saved = async (fixture: OAuthServerStoreFixture, entry: OAuthServerEntry) =>
  (await fixture.store.find(entry.model, { id: entry.id })) !== undefined

async function cases(
  fixture: OAuthServerStoreFixture,
  outbox: MailOutboxStore,
  clock: SuiteClock,
  check: Check,
) {
  const { store } = fixture
  /** Upserts `entry` with one fresh entry of `owner`: the entry must be written exactly when it is saved. */
  const expectWrittenWith = async (what: string, entry: OAuthServerEntry, owner: string) => {
    const message = await notice(owner, clock)
    const happened = await store.upsert(entry, { outbox: [message] }).then(
      () => true,
      () => false,
    )
    const isSaved = await saved(fixture, entry)
    const found = (await written(outbox, [message.id])).has(message.id)
    check(
      happened === isSaved,
      `${what}: the upsert ${happened ? 'resolved' : 'failed'} but the entry is ${isSaved ? '' : 'not '}stored`,
    )
    check(
      found === isSaved,
      `${what}: the entry is ${isSaved ? '' : 'not '}stored but its notification was ${found ? '' : 'not '}written`,
    )
    return isSaved
  }
  const accountId = await freshAccount(fixture)
  const other = await freshAccount(fixture)
  const grant = grantEntry(accountId, clock)
  check(
    await expectWrittenWith('saving a grant with its notification', grant, accountId),
    'a grant with its notification was not saved',
  )
  check(
    !(await expectWrittenWith(
      "a grant with a notification of another account's person",
      grantEntry(accountId, clock),
      other,
    )),
    "a grant was saved with a notification addressed to another account's person",
  )
  check(
    !(await expectWrittenWith(
      'a token (not a grant) with a notification',
      grantToken('AccessToken', grant, clock),
      accountId,
    )),
    'a token was saved with a notification',
  )
  const unsaveable = { ...grantEntry(accountId, clock), id: '' }
  check(
    !(await expectWrittenWith('an invalid grant with a notification', unsaveable, accountId)),
    'an invalid grant was saved',
  )
}

/** A store without an outbox: a grant that carries entries is refused and not saved. */
async function withoutOutbox(fixture: OAuthServerStoreFixture, clock: SuiteClock, check: Check) {
  const accountId = await freshAccount(fixture)
  const grant = grantEntry(accountId, clock)
  const refused = await fixture.store.upsert(grant, { outbox: [await notice(accountId, clock)] }).then(
    () => false,
    () => true,
  )
  check(refused, 'a store without an outbox accepted a grant with notification entries')
  check(!(await saved(fixture, grant)), 'a refused grant was saved')
}

export const outboxCases: readonly Case[] = [
  conformanceCase(
    'oauth_server.grant-outbox',
    "a grant saved with its notification (an MCP client connected) writes it in the grant's transaction, only when the grant is saved; a notification for another account's person, on an entry that is not a grant, or with an invalid grant is refused and nothing is written; a store without an outbox refuses entries and saves nothing",
    async ({ fixture, clock }, check) => {
      if (fixture.outbox !== undefined) return cases(fixture, fixture.outbox, clock, check)
      return withoutOutbox(fixture, clock, check)
    },
  ),
]
