// A deploy step that migrates before any instance starts (optional: `migrate` at startup is enough).
// Exit code 0 when the schema is current, 1 when migrating failed.
import { isPortcullisError } from '@portcullis/core'
import { createPostgresClient, migrate } from '@portcullis/postgres'

const connectionString = process.env.DATABASE_URL
if (connectionString === undefined) throw new Error('DATABASE_URL is required')

const client = createPostgresClient({ connectionString, maxConnections: 1 })
try {
  const { applied, current } = await migrate(client, { lockTimeoutMs: 120_000 })
  console.log(applied.length === 0 ? `schema already at ${current}` : `applied ${applied.join(', ')}`)
} catch (error) {
  // `postgres.migration_modified`: an applied migration's SQL changed (never edit published ones).
  // `postgres.unavailable`: no database, or another instance held the lock past lockTimeoutMs.
  console.error(isPortcullisError(error) ? `${error.code}: ${error.message}` : error)
  process.exitCode = 1
} finally {
  await client.close()
}
