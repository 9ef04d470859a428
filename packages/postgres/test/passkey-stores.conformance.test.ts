import { passkeyChallengeStoreSuite, passkeyStoreSuite } from '@portcullis/conformance/passkeys'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import { PostgresMailOutbox, PostgresPasskeyChallengeStore, PostgresPasskeyStore } from '../src/index.js'
import { migratedDatabase, splitRaceCases } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

// Every passkey case runs on the pool: the counter compare-and-swap races on real concurrent sessions.
describeConformance(
  passkeyStoreSuite(() => ({
    store: new PostgresPasskeyStore({ client: db.client }),
    outbox: new PostgresMailOutbox({ client: db.client }),
  })),
)
const challenges = splitRaceCases(
  passkeyChallengeStoreSuite(() => ({ store: new PostgresPasskeyChallengeStore({ client: db.client }) })),
)

describeConformance(challenges.others)

// Concurrent challenge consumption on real concurrent sessions.
describe('concurrent database', () => {
  describeConformance(challenges.races)
})
