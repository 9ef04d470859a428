import type { ConformanceSuite } from '@portcullis/conformance'
import {
  localAccountStoreSuite,
  rateLimitStoreSuite,
  refreshTokenStoreSuite,
  sessionStoreSuite,
} from '@portcullis/conformance/local-accounts'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import {
  type PostgresClient,
  PostgresLocalAccountStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
} from '../src/index.js'
import { migratedDatabase, splitRaceCases } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

// A second pool on the same database, as a second app instance has: the race cases split their
// concurrent calls between `store` (first pool) and `peer` (this one).
const other = db.connect(8)

function fixture<Store>(create: (client: PostgresClient) => Store) {
  return () => ({ store: create(db.client), peer: create(other) })
}

/** Registers a suite: every case on one pool, the race cases between two pools (two app instances). */
function register<Fixture>(suite: ConformanceSuite<Fixture>): void {
  const { races, others } = splitRaceCases(suite)
  describeConformance(others)
  describe('concurrent database, two app instances', () => {
    describeConformance(races)
  })
}

register(localAccountStoreSuite(fixture((client) => new PostgresLocalAccountStore({ client }))))
register(
  sessionStoreSuite(
    () => ({
      store: new PostgresSessionStore({ client: db.client }),
      peer: new PostgresSessionStore({ client: other }),
      accounts: new PostgresLocalAccountStore({ client: db.client }),
    }),
    { accountEpoch: true },
  ),
)
register(refreshTokenStoreSuite(fixture((client) => new PostgresRefreshTokenStore({ client }))))
register(rateLimitStoreSuite(fixture((client) => new PostgresRateLimitStore({ client }))))
