import { randomBytes } from 'node:crypto'
import type { ConformanceSuite } from '@portcullis/conformance'
import {
  AESGCMOAuthTransactionProtector,
  type OAuthTransactionProtector,
  OAuthTransactionProtectorKey,
} from '@portcullis/core/protection'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { createPostgresClient, migrate, type PostgresClient } from '../../src/index.js'

export interface MigratedDatabase {
  readonly database: TestDatabase
  /** A pool on the database, already migrated. */
  readonly client: PostgresClient
  /** Another pool, as a second app instance would have. */
  connect(maxConnections?: number): PostgresClient
  close(): Promise<void>
}

/** A fresh isolated database (see `createTestDatabase`), migrated, with one pool open. */
export async function migratedDatabase(): Promise<MigratedDatabase> {
  const database = await createTestDatabase()
  const clients: PostgresClient[] = []
  const connect = (maxConnections = 8) => {
    const client = createPostgresClient({ connectionString: database.connectionString, maxConnections })
    clients.push(client)
    return client
  }
  const client = connect()
  await migrate(client)
  return {
    database,
    client,
    connect,
    async close() {
      await Promise.all(clients.map((open) => open.close()))
      await database.close()
    },
  }
}

/** A real AES-256-GCM protector under a fresh random key (test keys are never committed). */
export function realProtector(): OAuthTransactionProtector {
  return new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('test-1', randomBytes(32)),
  })
}

/** Conformance cases that need real concurrent sessions (races of concurrent callers). */
const RACE_CASE = /race|concurrent|cas-one-winner/

/** Splits a suite into its race cases and the rest, both runnable with `describeConformance`. */
export function splitRaceCases<Context>(suite: ConformanceSuite<Context>): {
  races: ConformanceSuite<Context>
  others: ConformanceSuite<Context>
} {
  return {
    races: {
      ...suite,
      name: `${suite.name} (races)`,
      cases: suite.cases.filter((c) => RACE_CASE.test(c.id)),
    },
    others: { ...suite, cases: suite.cases.filter((c) => !RACE_CASE.test(c.id)) },
  }
}
