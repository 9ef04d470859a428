import { randomBytes, randomUUID } from 'node:crypto'
import { type OutboxEntry, sealOutboxMessage } from '@portcullis/core/mail'
import { type PostgresClient, PostgresOAuthAccountStore, PostgresOAuthServerStore } from '../../src/index.js'
import { NOW } from './accounts.js'
import { type FaultCase, type FaultKit, partial } from './faults.js'

const SECOND = 'second-idp'

/**
 * Cut cases for provider identities and connected clients: linking and unlinking write their security notification in the
 * same transaction; parked on the outbox table (after the link row is written or deleted and the epoch
 * moved), a cut leaves both or neither, never a change without its notification or a notification of a
 * change that did not happen.
 */
export function identityNoticeFaultCases(kit: FaultKit): readonly FaultCase[] {
  const { db, protector, identity, one, linked } = kit
  const second = (client: PostgresClient) =>
    new PostgresOAuthAccountStore({ client, provider: SECOND, clientId: 'c', protector })
  const notice = (accountId: string, linkedNow: boolean): Promise<OutboxEntry> =>
    sealOutboxMessage(
      protector,
      {
        kind: 'security-notification',
        to: { address: 'owner@fault.example' },
        locale: 'en',
        change: { type: linkedNow ? 'identity-linked' : 'identity-unlinked', provider: SECOND },
        occurredAt: NOW,
      },
      { now: NOW, accountId },
    )
  /** `written` when the change and its notification are both there, `untouched` when neither is. */
  const outcome = async (accountId: string, entry: OutboxEntry, changedIfLinked: boolean) => {
    const isLinked = (await second(db.client).resolveLink({ accountId, provider: SECOND })) !== null
    const row = await one<{ id: string }>('select id::text as id from portcullis_mail_outbox where id = $1', [
      entry.id,
    ])
    const changed = isLinked === changedIfLinked
    if (changed && row !== undefined) return 'written' as const
    if (!changed && row === undefined) return 'untouched' as const
    return partial(`identity ${isLinked ? 'linked' : 'absent'}, notification ${row ? 'written' : 'absent'}`)
  }
  const connected = (accountId: string): Promise<OutboxEntry> =>
    sealOutboxMessage(
      protector,
      {
        kind: 'security-notification',
        to: { address: 'owner@fault.example' },
        locale: 'en',
        change: { type: 'mcp-client-connected', client: 'Fault client' },
        occurredAt: NOW,
      },
      { now: NOW, accountId },
    )
  return [
    {
      name: 'MCP grant saved with its connection notification in the outbox',
      table: 'portcullis_mail_outbox',
      multiStatement: true,
      async prepare(client) {
        const { accountId } = await linked(db.client)
        const grantId = randomBytes(16).toString('base64url')
        const expiresAt = new Date(Date.now() + 3_600_000)
        const grant = {
          model: 'Grant',
          id: grantId,
          payload: {
            jti: grantId,
            kind: 'Grant',
            accountId,
            clientId: `client-${randomUUID()}`,
            openid: { scope: 'openid' },
            iat: Math.floor(Date.now() / 1000),
            exp: Math.floor(expiresAt.getTime() / 1000),
          },
          expiresAt,
        }
        const entry = await connected(accountId)
        const store = new PostgresOAuthServerStore({ client })
        return {
          run: () => store.upsert(grant, { outbox: [entry] }),
          async check() {
            const isSaved =
              (await new PostgresOAuthServerStore({ client: db.client }).find('Grant', { id: grantId })) !==
              undefined
            const row = await one('select 1 from portcullis_mail_outbox where id = $1', [entry.id])
            if (isSaved && row !== undefined) return 'written'
            if (!isSaved && row === undefined) return 'untouched'
            return partial(
              `grant ${isSaved ? 'saved' : 'absent'}, notification ${row ? 'written' : 'absent'}`,
            )
          },
        }
      },
    },
    {
      name: 'identity linked with its notification in the outbox',
      table: 'portcullis_mail_outbox',
      multiStatement: true,
      async prepare(client) {
        const { accountId } = await linked(db.client)
        const entry = await notice(accountId, true)
        const store = second(client)
        const person = identity(SECOND)
        return {
          run: () =>
            store.link({
              accountId,
              identity: person,
              grant: { scopes: ['openid'] },
              now: NOW,
              outbox: [entry],
            }),
          check: () => outcome(accountId, entry, true),
        }
      },
    },
    {
      name: 'identity unlinked with its notification in the outbox',
      table: 'portcullis_mail_outbox',
      multiStatement: true,
      async prepare(client) {
        const { accountId } = await linked(db.client)
        const person = identity(SECOND)
        const made = await second(db.client).link({
          accountId,
          identity: person,
          grant: { scopes: ['openid'] },
          now: NOW,
        })
        const entry = await notice(accountId, false)
        const store = second(client)
        const request = { accountId, provider: SECOND, providerAccountId: made.link.providerAccountId }
        return {
          run: () => store.unlink({ ...request, outbox: [entry] }),
          check: () => outcome(accountId, entry, false),
        }
      },
    },
  ]
}
