import type { AddressInfo } from 'node:net'
import { startEmbeddedPostgres } from '@portcullis/database-tooling/embedded'
import { createPostgresClient, migrate } from '@portcullis/postgres'
import { createReferenceApp } from './app.js'
import type { ReferenceConfig } from './config.js'

/** A running reference app: where it listens, what its storage is, and how to stop it. */
export interface RunningReferenceApp {
  readonly url: string
  /** Human-readable description of the storage in use (never a connection string with credentials). */
  readonly storage: string
  /** Versions the start applied, oldest first (empty when the schema was already current). */
  readonly appliedMigrations: readonly number[]
  readonly schemaVersion: number
  close(): Promise<void>
}

/** The port is taken: the message is one line naming the port and the `PORT` variable. */
export class PortInUseError extends Error {
  readonly port: number
  constructor(host: string, port: number) {
    super(
      `port ${port} on ${host} is already in use; set PORT to a free port (for example PORT=${port + 1} pnpm start)`,
    )
    this.name = 'PortInUseError'
    this.port = port
  }
}

/**
 * Starts storage (embedded PGlite under `dataDir`, or the server at `databaseUrl`), applies pending
 * migrations and listens. Everything started is stopped again when a later step fails.
 */
export async function startReferenceApp(config: ReferenceConfig): Promise<RunningReferenceApp> {
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir })
  const connectionString = config.databaseUrl ?? embedded?.connectionString ?? ''
  // PGlite is one session: a single pooled connection avoids queueing behind its lock.
  const postgres = createPostgresClient({ connectionString, maxConnections: embedded ? 1 : 10 })
  const stopStorage = async () => {
    await postgres.close()
    await embedded?.stop()
  }
  try {
    const report = await migrate(postgres)
    const app = createReferenceApp({ postgres })
    const server = app.listen(config.port, config.host)
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve)
      server.once('error', (error: NodeJS.ErrnoException) => {
        reject(error.code === 'EADDRINUSE' ? new PortInUseError(config.host, config.port) : error)
      })
    })
    const { port } = server.address() as AddressInfo
    let closed: Promise<void> | undefined
    return {
      url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
      storage: embedded ? `embedded PGlite in ${config.dataDir}` : 'Postgres from DATABASE_URL',
      appliedMigrations: report.applied,
      schemaVersion: report.current,
      close() {
        closed ??= new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        }).then(stopStorage)
        return closed
      },
    }
  } catch (error) {
    await stopStorage().catch(() => undefined)
    throw error
  }
}
