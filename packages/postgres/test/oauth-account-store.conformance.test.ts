import { oauthAccountStoreSuite } from '@portcullis/conformance/oauth'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import { inspectPostgresOAuthAccountStore, PostgresAccountStore, PostgresMailOutbox } from '../src/index.js'
import { migratedDatabase, realProtector, splitRaceCases } from './support/database.js'

// One database for the file; every case gets a fresh store over it (the suite uses unique ids, so
// the cases share tables the way app instances do).
const db = await migratedDatabase()
afterAll(() => db.close())

const protector = realProtector()
const { races, others } = splitRaceCases(
  oauthAccountStoreSuite(() => {
    const accountStore = new PostgresAccountStore({ client: db.client })
    return {
      store: accountStore.oauth({ provider: 'example-idp', clientId: 'client-1', protector }),
      accountStore,
      inspector: inspectPostgresOAuthAccountStore(db.client),
      outbox: new PostgresMailOutbox({ client: db.client }),
    }
  }),
)

describeConformance(others)

// The race cases, on real concurrent sessions.
describe('concurrent database', () => {
  describeConformance(races)
})
