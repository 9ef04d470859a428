import { organizationStoresSuite } from '@portcullis/conformance/organizations'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import { PostgresRevocationNotices } from '../src/index.js'
import { migratedDatabase, splitRaceCases } from './support/database.js'
import { postgresOrganizationFixture } from './support/organizations.js'

const db = await migratedDatabase()
const other = db.connect(8)
const here = new PostgresRevocationNotices({ client: db.client })
const there = new PostgresRevocationNotices({ client: other })
await Promise.all([here.start(), there.start()])
afterAll(async () => {
  await Promise.all([here.close(), there.close()])
  await db.close()
})

const { races, others } = splitRaceCases(
  organizationStoresSuite(postgresOrganizationFixture(db.client, other, { here, there })),
)

describeConformance(others)

// Owners demoting each other, owners leaving, accepts and revokes racing, on two pools as two app instances.
describe('concurrent database, two app instances', () => {
  describeConformance(races)
})
