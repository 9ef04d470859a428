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

// Concurrent take/redemption needs real concurrent sessions; embedded PGlite serializes every
// statement (one session), so those two cases run only against a server (DATABASE_URL, Testcontainers).
describe.runIf(db.database.concurrent)('concurrent database', () => {
  describeConformance(races)
})
