import { randomUUID } from 'node:crypto'
import { organizationDomainStoreSuite } from '@portcullis/conformance/organization-domains'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe, expect, it } from 'vitest'
import { PostgresOrganizationDomainStore } from '../src/index.js'
import { migratedDatabase, splitRaceCases } from './support/database.js'
import { postgresOrganizationDomainFixture } from './support/organization-domains.js'

const db = await migratedDatabase()
afterAll(() => db.close())
const other = db.connect(8)

const { races, others } = splitRaceCases(
  organizationDomainStoreSuite(postgresOrganizationDomainFixture(db.client, other)),
)

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
