import { oauthTransactionStoreSuite } from '@portcullis/conformance/protection'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import { PostgresOAuthTransactionStore } from '../src/index.js'
import { migratedDatabase, realProtector, splitRaceCases } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

const { races, others } = splitRaceCases(
  oauthTransactionStoreSuite(() => ({
    store: new PostgresOAuthTransactionStore({ client: db.client, protector: realProtector() }),
    inspectStoredForm: async () =>
      (await db.client.pool.query('select * from portcullis_oauth_transactions')).rows,
  })),
)

describeConformance(others)

// 16 concurrent consumes, on real concurrent sessions.
describe('concurrent database', () => {
  describeConformance(races)
})
