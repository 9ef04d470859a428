import type { ConformanceSuite } from '@portcullis/conformance'
import { accountStoreSuite } from '@portcullis/conformance/accounts'
import {
  rateLimitStoreSuite,
  refreshTokenStoreSuite,
  sessionStoreSuite,
} from '@portcullis/conformance/local-accounts'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import {
  PostgresAccountStore,
  PostgresApiKeyStore,
  type PostgresClient,
  PostgresMailOutbox,
  PostgresOneTimeCodeStore,
  PostgresPasskeyChallengeStore,
  PostgresPasskeyStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
  PostgresStepUpStore,
  PostgresTotpStore,
} from '../src/index.js'
import { migratedDatabase, realProtector, splitRaceCases } from './support/database.js'

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

// The account store with the other stores of the same schema: deleting an account must take its
// sessions, refresh families, step-up credentials, API keys, TOTP and passkeys in the same transaction.
const protector = realProtector()
register(
  accountStoreSuite(() => ({
    store: new PostgresAccountStore({ client: db.client }),
    peer: new PostgresAccountStore({ client: other }),
    protector,
    outbox: new PostgresMailOutbox({ client: db.client }),
    codes: new PostgresOneTimeCodeStore({ client: db.client }),
    sessions: new PostgresSessionStore({ client: db.client }),
    refreshTokens: new PostgresRefreshTokenStore({ client: db.client }),
    stepUp: new PostgresStepUpStore({ client: db.client }),
    apiKeys: new PostgresApiKeyStore({ client: db.client }),
    totp: new PostgresTotpStore({ client: db.client }),
    passkeys: new PostgresPasskeyStore({ client: db.client }),
    passkeyChallenges: new PostgresPasskeyChallengeStore({ client: db.client }),
  })),
)
register(
  sessionStoreSuite(
    () => ({
      store: new PostgresSessionStore({ client: db.client }),
      peer: new PostgresSessionStore({ client: other }),
      accounts: new PostgresAccountStore({ client: db.client }),
    }),
    { accountEpoch: true, activeOrganization: true },
  ),
)
register(refreshTokenStoreSuite(fixture((client) => new PostgresRefreshTokenStore({ client }))))
register(rateLimitStoreSuite(fixture((client) => new PostgresRateLimitStore({ client }))))
