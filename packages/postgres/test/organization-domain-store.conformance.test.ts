import { randomUUID } from 'node:crypto'
import { organizationDomainStoreSuite } from '@portcullis/conformance/organization-domains'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe, expect, it } from 'vitest'
import {
  PostgresAccountStore,
  type PostgresClient,
  PostgresOrganizationDomainStore,
  PostgresOrganizationStore,
} from '../src/index.js'
import { migratedDatabase, splitRaceCases } from './support/database.js'
import { createAccount } from './support/organizations.js'

const db = await migratedDatabase()
afterAll(() => db.close())
const other = db.connect(8)

/** Organizations made and deleted through `PostgresOrganizationStore` (the claims cascade with them). */
function fixture(client: PostgresClient, peer: PostgresClient) {
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
    async deleteOrganization(organizationId: string) {
      const deleted = await organizations.deleteOrganization({
        organizationId,
        actorAccountId: owners.get(organizationId) ?? '',
        now: new Date(),
      })
      if (deleted.outcome !== 'deleted') throw new Error(`organization fixture: ${deleted.outcome}`)
    },
  })
}

const { races, others } = splitRaceCases(organizationDomainStoreSuite(fixture(db.client, other)))

describeConformance(others)

// Two organizations verifying one domain, claims racing the limit, on two pools as two app instances.
describe('concurrent database, two app instances', () => {
  describeConformance(races)
})

describe('PostgresOrganizationDomainStore', () => {
  it('refuses a claim naming no organization as invalid input, and stores nothing', async () => {
    const store = new PostgresOrganizationDomainStore({ client: db.client })
    const claim = {
      id: 'A'.repeat(22),
      organizationId: `org-${randomUUID()}`,
      domain: 'nobody.example',
      token: 'T'.repeat(43),
      enrollment: 'manual-invitation' as const,
      createdAt: new Date(),
      verifiedAt: null,
    }
    await expect(store.claim({ claim, maxPerOrganization: 5 })).rejects.toMatchObject({
      code: 'organization_domains.invalid_input',
    })
    expect(await store.list({ organizationId: claim.organizationId })).toEqual([])
  })
})
