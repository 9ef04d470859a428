import { apiKeyStoreConformanceSuite } from '@portcullis/conformance/api-keys'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import { PostgresApiKeyStore } from '../src/index.js'
import { migratedDatabase, splitRaceCases } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

const second = db.connect(4)
const { races, others } = splitRaceCases(
  apiKeyStoreConformanceSuite(() => new PostgresApiKeyStore({ client: db.client })),
)

describeConformance(others)

// The same cases with the request-path lookup as an unnamed statement (a pooler in transaction mode).
describeConformance({
  ...others,
  name: `${others.name} (preparedStatements: false)`,
  createContext: () => ({
    store: new PostgresApiKeyStore({ client: { ...second, preparedStatements: false } }),
  }),
})

// Concurrent rotations, on real concurrent sessions.
describe('concurrent database', () => {
  describeConformance(races)
})
