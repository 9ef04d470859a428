import { randomUUID } from 'node:crypto'
import { envelopeInventorySuite } from '@portcullis/conformance/protection'
import { describeConformance } from '@portcullis/conformance/vitest'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { afterAll } from 'vitest'
import {
  createPostgresClient,
  migrate,
  PostgresEnvelopeInventory,
  PostgresMailOutbox,
  PostgresOAuthAccountStore,
  PostgresOAuthTransactionStore,
  PostgresOneTimeCodeStore,
  PostgresTotpStore,
} from '../src/index.js'

// One database for the file; the inventory counts every envelope it sees, so each case migrates a
// schema of its own and its stores and inventory work there alone.
const database = await createTestDatabase()
afterAll(() => database.close())

describeConformance(
  envelopeInventorySuite(async ({ protector, clock }) => {
    const client = createPostgresClient({
      connectionString: database.connectionString,
      maxConnections: 4,
      schema: `inventory_${randomUUID().replaceAll('-', '')}`,
    })
    await migrate(client)
    return {
      inventory: new PostgresEnvelopeInventory({ client, clock }),
      oauthAccounts: new PostgresOAuthAccountStore({
        client,
        provider: 'conformance',
        clientId: 'client-1',
        protector,
      }),
      oauthTransactions: new PostgresOAuthTransactionStore({ client, protector }),
      totp: new PostgresTotpStore({ client }),
      mailOutbox: new PostgresMailOutbox({ client }),
      oneTimeCodes: new PostgresOneTimeCodeStore({ client }),
      dispose: () => client.close(),
    }
  }),
)
