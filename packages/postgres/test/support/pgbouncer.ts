import { type PgBouncer, pgbouncerMissing, startPgBouncer } from '@portcullis/database-tooling/pgbouncer'
import { createPostgresClient, type PostgresClient } from '../../src/index.js'
import { type MigratedDatabase, migratedDatabase } from './database.js'

/** Why the PgBouncer tests skip here (no `pgbouncer` program), said once per file; undefined: they run. */
export const withoutPgBouncer = pgbouncerMissing()
if (withoutPgBouncer !== undefined) console.warn(withoutPgBouncer)

export interface PooledDatabase {
  /** The migrated test database, reached directly. */
  readonly direct: MigratedDatabase
  readonly bouncer: PgBouncer
  /** The database's URL through PgBouncer (transaction mode). */
  readonly pooledUrl: string
  /** A new pool through PgBouncer, declared as such (`pooler: 'transaction'`), as an app instance has. */
  pooled(maxConnections?: number, applicationName?: string): PostgresClient
  close(): Promise<void>
}

/** A fresh migrated database with a real PgBouncer in transaction mode in front of its server. */
export async function pooledDatabase(): Promise<PooledDatabase> {
  const direct = await migratedDatabase()
  const bouncer = await startPgBouncer({ upstream: direct.database.connectionString })
  const pooledUrl = bouncer.through(direct.database.connectionString)
  const clients: PostgresClient[] = []
  return {
    direct,
    bouncer,
    pooledUrl,
    pooled(maxConnections = 8, applicationName = 'portcullis') {
      const client = createPostgresClient({
        connectionString: pooledUrl,
        pooler: 'transaction',
        maxConnections,
        applicationName,
      })
      clients.push(client)
      return client
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()))
      await bouncer.stop()
      await direct.close()
    },
  }
}
