import { oneTimeCodeStoreSuite } from '@portcullis/conformance/codes'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import { postgresCodeFixture } from './support/codes.js'
import { migratedDatabase, splitRaceCases } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())
const other = db.connect(8)

const { races, others } = splitRaceCases(oneTimeCodeStoreSuite(postgresCodeFixture(db.client, other)))

describeConformance(others)

// Concurrent consumers and guesses on two pools, as two app instances.
describe('concurrent database, two app instances', () => {
  describeConformance(races)
})
