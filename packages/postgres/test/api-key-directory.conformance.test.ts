import { apiKeyDirectoryConformanceSuite } from '@portcullis/conformance/api-keys'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll } from 'vitest'
import { PostgresApiKeyStore } from '../src/index.js'
import { migratedDatabase } from './support/database.js'

// Listing an owner's keys (the ApiKeyDirectory port) over the API-key table; every case uses fresh
// owners, so the cases share one database.
const db = await migratedDatabase()
afterAll(() => db.close())

describeConformance(
  apiKeyDirectoryConformanceSuite(() => {
    const store = new PostgresApiKeyStore({ client: db.client })
    return { store, directory: store }
  }),
)
