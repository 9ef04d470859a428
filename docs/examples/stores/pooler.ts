// Behind a pooler in transaction mode (PgBouncer's `pool_mode = transaction`, or the pooled endpoint a
// managed Postgres hands out): the stores' pool goes through the pooler, the revocation listener goes to
// the server itself.
import { createPostgresClient, migrate, PostgresRevocationNotices } from '@portcullis/postgres'

function requiredEnv(name: string): string {
  const value = process.env[name]
  if (value === undefined || value.trim() === '') throw new Error(`${name} is required`)
  return value
}

// The pooler's address. `pooler: 'transaction'` sends no session setting the pooler would refuse or
// drop and prepares no named statement. Name each instance: its connections show it in pg_stat_activity.
export const database = createPostgresClient({
  connectionString: requiredEnv('DATABASE_URL'),
  pooler: 'transaction',
  applicationName: 'shop-web-1',
})

// Migrations take a transaction-scoped lock: they run through the pooler like any store operation.
await migrate(database)

// The server's own address: a pooler in transaction mode cannot hold a LISTEN. The listener proves its
// path with a NOTIFY of its own every heartbeat, and is trusted only while it hears them.
// #region listener
export const notices = new PostgresRevocationNotices({
  client: database,
  connectionString: requiredEnv('DATABASE_LISTENER_URL'),
  applicationName: 'shop-web-1-listener',
  // Told once when the listener cannot hear its own NOTIFY (it then stays untrusted).
  onProblem: (problem) => console.error(`${problem.code}: ${problem.message}`),
})
await notices.start()
// #endregion listener
