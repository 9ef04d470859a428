import { joinRequestStoresSuite } from '@portcullis/conformance/organizations'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import { migratedDatabase, splitRaceCases } from './support/database.js'
import { postgresJoinRequestFixture } from './support/join-requests.js'

const db = await migratedDatabase()
const other = db.connect(8)
afterAll(() => db.close())

const { races, others } = splitRaceCases(joinRequestStoresSuite(postgresJoinRequestFixture(db.client, other)))

describeConformance(others)

// Approve against decline, two approvals, one account asking many times, the pending limit, a request
// against an accepted invitation: on two pools, as two app instances.
describe('concurrent database, two app instances', () => {
  describeConformance(races)
})
