import { stepUpStoreSuite } from '@portcullis/conformance/step-up'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import { PostgresStepUpStore } from '../src/index.js'
import { migratedDatabase, splitRaceCases } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

const { races, others } = splitRaceCases(
  stepUpStoreSuite(() => ({ store: new PostgresStepUpStore({ client: db.client }) })),
)

describeConformance(others)

// Concurrent take/redemption, on real concurrent sessions.
describe('concurrent database', () => {
  describeConformance(races)
})
