import type { JoinRequestStoresFixture } from '@portcullis/conformance/organizations'
import type { RevocationNotices } from '@portcullis/core/revocation'
import { PostgresAccountStore, type PostgresClient, PostgresOrganizationStore } from '../../src/index.js'
import { createAccount } from './organizations.js'

/** The join-request suite's fixture over two pools (two app instances); accounts through `PostgresAccountStore`. */
export function postgresJoinRequestFixture(
  client: PostgresClient,
  other: PostgresClient,
  listeners?: { readonly here: RevocationNotices; readonly there: RevocationNotices },
): () => JoinRequestStoresFixture {
  const accounts = new PostgresAccountStore({ client })
  return () => ({
    store: new PostgresOrganizationStore({ client }),
    peer: new PostgresOrganizationStore({ client: other }),
    ...(listeners === undefined ? {} : { notices: listeners.here, peerNotices: listeners.there }),
    createAccount: (options) => createAccount(accounts, options),
    deleteAccount: (accountId) => accounts.deleteAccount({ accountId, now: new Date() }),
  })
}
