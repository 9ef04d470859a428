import type { ConformanceSuite } from '@portcullis/conformance'
import { accountStoreSuite } from '@portcullis/conformance/accounts'
import { apiKeyStoreConformanceSuite } from '@portcullis/conformance/api-keys'
import { oneTimeCodeStoreSuite } from '@portcullis/conformance/codes'
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
  PostgresPasskeyChallengeStore,
  PostgresPasskeyStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
  PostgresStepUpStore,
  PostgresTotpStore,
} from '../src/index.js'
import { postgresCodeFixture } from './support/codes.js'
import { realProtector, splitRaceCases } from './support/database.js'
import { type PooledDatabase, pooledDatabase, withoutPgBouncer } from './support/pgbouncer.js'

/**
 * The store suites with every store on a pool through a real PgBouncer in transaction mode (stock
 * settings: no startup parameter ignored), the client declared `pooler: 'transaction'`. The race cases
 * split their calls between two such pools, as two app instances behind one pooler.
 */
const db: PooledDatabase | undefined = withoutPgBouncer === undefined ? await pooledDatabase() : undefined
afterAll(() => db?.close())
const client = db?.pooled(8) as PostgresClient
const other = db?.pooled(8) as PostgresClient

function register<Fixture>(suite: ConformanceSuite<Fixture>): void {
  const { races, others } = splitRaceCases(suite)
  describeConformance(others)
  describe('concurrent database, two app instances', () => {
    describeConformance(races)
  })
}

describe.skipIf(db === undefined)('the stores through PgBouncer in transaction mode', () => {
  const protector = realProtector()
  register(
    accountStoreSuite(() => ({
      store: new PostgresAccountStore({ client }),
      peer: new PostgresAccountStore({ client: other }),
      protector,
      outbox: new PostgresMailOutbox({ client }),
      sessions: new PostgresSessionStore({ client }),
      refreshTokens: new PostgresRefreshTokenStore({ client }),
      stepUp: new PostgresStepUpStore({ client }),
      apiKeys: new PostgresApiKeyStore({ client }),
      totp: new PostgresTotpStore({ client }),
      passkeys: new PostgresPasskeyStore({ client }),
      passkeyChallenges: new PostgresPasskeyChallengeStore({ client }),
    })),
  )
  register(
    sessionStoreSuite(
      () => ({
        store: new PostgresSessionStore({ client }),
        peer: new PostgresSessionStore({ client: other }),
        accounts: new PostgresAccountStore({ client }),
      }),
      { accountEpoch: true },
    ),
  )
  register(
    refreshTokenStoreSuite(() => ({
      store: new PostgresRefreshTokenStore({ client }),
      peer: new PostgresRefreshTokenStore({ client: other }),
    })),
  )
  register(
    rateLimitStoreSuite(() => ({
      store: new PostgresRateLimitStore({ client }),
      peer: new PostgresRateLimitStore({ client: other }),
    })),
  )
  register(apiKeyStoreConformanceSuite(() => new PostgresApiKeyStore({ client })))
  register(oneTimeCodeStoreSuite(postgresCodeFixture(client, other)))
})
