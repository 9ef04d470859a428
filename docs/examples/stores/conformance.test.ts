// Runs the account-store and step-up suites against the Postgres stores on a real database, one
// vitest test per invariant. Point DATABASE_URL at a disposable database: the suites write rows.
import { randomBytes } from 'node:crypto'
import { oauthAccountStoreSuite } from '@portcullis/conformance/oauth'
import { stepUpStoreSuite } from '@portcullis/conformance/step-up'
import { describeConformance } from '@portcullis/conformance/vitest'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import {
  createPostgresClient,
  inspectPostgresOAuthAccountStore,
  migrate,
  PostgresAccountStore,
  PostgresMailOutbox,
  PostgresStepUpStore,
} from '@portcullis/postgres'
import { afterAll } from 'vitest'

const connectionString = process.env.DATABASE_URL
if (connectionString === undefined) throw new Error('DATABASE_URL must name a disposable test database')

const client = createPostgresClient({ connectionString, maxConnections: 8 })
await migrate(client)
afterAll(() => client.close())

// Test keys are random per run: never commit key material, not even for tests.
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('test-1', randomBytes(32)),
})

// Every case gets a fresh store over the same tables; the suites use unique ids, so cases (and
// earlier runs) never collide.
describeConformance(
  oauthAccountStoreSuite(() => {
    const accountStore = new PostgresAccountStore({ client })
    return {
      store: accountStore.oauth({ provider: 'example-idp', clientId: 'client-1', protector }),
      accountStore,
      inspector: inspectPostgresOAuthAccountStore(client),
      // where link and unlink write their notifications, in the same transaction
      outbox: new PostgresMailOutbox({ client }),
    }
  }),
)

describeConformance(stepUpStoreSuite(() => ({ store: new PostgresStepUpStore({ client }) })))
