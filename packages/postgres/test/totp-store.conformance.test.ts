import { totpResealingSuite, totpStoreSuite } from '@portcullis/conformance/totp'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import { PostgresMailOutbox, PostgresTotpStore } from '../src/index.js'
import { migratedDatabase, splitRaceCases } from './support/database.js'

const db = await migratedDatabase()
// A second pool on the same database: another app instance.
const otherInstance = db.connect()
afterAll(() => db.close())

const { races, others } = splitRaceCases(
  totpStoreSuite(() => ({
    store: new PostgresTotpStore({ client: db.client }),
    sibling: new PostgresTotpStore({ client: otherInstance }),
    outbox: new PostgresMailOutbox({ client: db.client }),
  })),
)

describeConformance(others)

// Concurrent step uses and recovery-code redemptions on real concurrent sessions of two pools.
describe('concurrent database', () => {
  describeConformance(races)
})

// Re-sealing after a key rotation: listing stale secrets and the compare-and-swap rewrite.
describeConformance(totpResealingSuite(() => ({ store: new PostgresTotpStore({ client: db.client }) })))
