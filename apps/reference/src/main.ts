import type { AddressInfo } from 'node:net'
import { startEmbeddedPostgres } from '@portcullis/database-tooling/embedded'
import { createPostgresClient } from '@portcullis/postgres'
import { createReferenceApp } from './app.js'
import { readConfig } from './config.js'

const config = readConfig()
const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir })
const connectionString = config.databaseUrl ?? embedded?.connectionString ?? ''
// PGlite is one session: a single pooled connection avoids queueing behind its lock.
const postgres = createPostgresClient({ connectionString, maxConnections: embedded ? 1 : 10 })
const app = createReferenceApp({ postgres })

const server = app.listen(config.port, config.host, () => {
  const { port } = server.address() as AddressInfo
  const storage = embedded ? `embedded PGlite in ${config.dataDir}` : 'Postgres from DATABASE_URL'
  console.log(`portcullis reference app listening on http://${config.host}:${port} (${storage})`)
})

async function shutdown(): Promise<void> {
  server.close()
  await postgres.close()
  await embedded?.stop()
  process.exit(0)
}
process.once('SIGINT', () => void shutdown())
process.once('SIGTERM', () => void shutdown())
