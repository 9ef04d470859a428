import { randomUUID } from 'node:crypto'
import { oauthVaultReencryptionSuite } from '@portcullis/conformance/oauth'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import { inspectPostgresOAuthAccountStore, PostgresOAuthAccountStore } from '../src/index.js'
import { migratedDatabase, splitRaceCases } from './support/database.js'

// One database for the file. Re-encryption sweeps every envelope of a provider registration, so each
// case gets a registration of its own (the tables are shared, as between app instances).
const db = await migratedDatabase()
afterAll(() => db.close())

const { races, others } = splitRaceCases(
  oauthVaultReencryptionSuite((protector) => ({
    store: new PostgresOAuthAccountStore({
      client: db.client,
      provider: `idp-${randomUUID()}`,
      clientId: 'client-1',
      protector,
    }),
    inspector: inspectPostgresOAuthAccountStore(db.client),
  })),
)

describeConformance(others)

// Refreshes racing a re-encryption, on real concurrent sessions.
describe('concurrent database', () => {
  describeConformance(races)
})
