// The Postgres examples' client: on the file's own fresh database (DATABASE_URL, which
// example-database.ts sets for every file), migrated, and closed when the file ends.
import { createPostgresClient, migrate, type PostgresClient } from '@portcullis/postgres'
import { afterAll } from 'vitest'

/** A client on the file's database, migrated; closed after the file. */
export async function exampleDatabase(): Promise<PostgresClient> {
  const connectionString = process.env.DATABASE_URL
  if (connectionString === undefined) throw new Error('DATABASE_URL must name a disposable test database')
  const client = createPostgresClient({ connectionString, maxConnections: 4 })
  afterAll(() => client.close())
  await migrate(client)
  return client
}
