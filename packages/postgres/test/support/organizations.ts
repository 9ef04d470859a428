import { randomUUID } from 'node:crypto'
import type { OrganizationStoresFixture } from '@portcullis/conformance/organizations'
import type { RevocationNotices } from '@portcullis/core/revocation'
import { PostgresAccountStore, type PostgresClient, PostgresOrganizationStore } from '../../src/index.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'

/** Makes an account through `PostgresAccountStore`, holding `address` (verified unless told otherwise). */
export async function createAccount(
  accounts: PostgresAccountStore,
  options: { readonly address?: string; readonly verified?: boolean } = {},
): Promise<string> {
  const accountId = randomUUID()
  const now = new Date()
  const created = await accounts.createAccount({
    accountId,
    username: `orgs-${accountId}`,
    passwordHash: HASH,
    now,
  })
  if (created.outcome !== 'created') throw new Error(`account fixture: ${created.outcome}`)
  if (options.address !== undefined) {
    const added = await accounts.addEmailAddress({ accountId, address: options.address, now })
    if (added.outcome !== 'added') throw new Error(`address fixture: ${added.outcome}`)
    if (options.verified !== false) {
      const verified = await accounts.verifyEmailAddress({ accountId, address: options.address, now })
      if (verified.outcome !== 'verified') throw new Error(`address fixture: ${verified.outcome}`)
    }
  }
  return accountId
}

/**
 * The organization suite's fixture over two pools (two app instances), each with its listener:
 * accounts made and deleted through `PostgresAccountStore`, the outbox read back from its table.
 */
export function postgresOrganizationFixture(
  client: PostgresClient,
  other: PostgresClient,
  listeners?: { readonly here: RevocationNotices; readonly there: RevocationNotices },
): () => OrganizationStoresFixture {
  const accounts = new PostgresAccountStore({ client })
  return () => ({
    store: new PostgresOrganizationStore({ client }),
    peer: new PostgresOrganizationStore({ client: other }),
    ...(listeners === undefined ? {} : { notices: listeners.here, peerNotices: listeners.there }),
    createAccount: (options) => createAccount(accounts, options),
    deleteAccount: (accountId) => accounts.deleteAccount({ accountId, now: new Date() }),
    async storedOutboxIds(ids) {
      const { rows } = await client.pool.query<{ id: string }>(
        'select id::text as id from portcullis_mail_outbox where id::text = any($1)',
        [[...ids]],
      )
      return rows.map((row) => row.id)
    },
  })
}
