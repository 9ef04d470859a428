import { randomUUID } from 'node:crypto'
import type { OrganizationDomainStoreFixture } from '@portcullis/conformance/organization-domains'
import {
  PostgresAccountStore,
  type PostgresClient,
  PostgresOrganizationDomainStore,
  PostgresOrganizationStore,
} from '../../src/index.js'
import { createAccount } from './organizations.js'

/**
 * The organization-domain suite's fixture over two pools (two app instances): organizations made and
 * deleted through `PostgresOrganizationStore` (their claims cascade with them).
 */
export function postgresOrganizationDomainFixture(
  client: PostgresClient,
  peer: PostgresClient,
): () => OrganizationDomainStoreFixture {
  const accounts = new PostgresAccountStore({ client })
  const organizations = new PostgresOrganizationStore({ client })
  const owners = new Map<string, string>()
  return () => ({
    store: new PostgresOrganizationDomainStore({ client }),
    peer: new PostgresOrganizationDomainStore({ client: peer }),
    async createOrganization() {
      const owner = await createAccount(accounts)
      const organizationId = `org-${randomUUID()}`
      const created = await organizations.createOrganization({
        organizationId,
        name: 'Domains',
        ownerAccountId: owner,
        now: new Date(),
      })
      if (created.outcome !== 'created') throw new Error(`organization fixture: ${created.outcome}`)
      owners.set(organizationId, owner)
      return organizationId
    },
    async deleteOrganization(organizationId) {
      const deleted = await organizations.deleteOrganization({
        organizationId,
        actorAccountId: owners.get(organizationId) ?? '',
        now: new Date(),
      })
      if (deleted.outcome !== 'deleted') throw new Error(`organization fixture: ${deleted.outcome}`)
    },
  })
}
