import { startEmbeddedPostgres } from '@portcullis/database-tooling/embedded'
import { createPostgresClient, type PostgresClient } from '@portcullis/postgres'
import { lockDataDir } from './data-lock.js'

/** The app's database: a Postgres client, what it is (for humans), and how to stop it. */
export interface Storage {
  readonly postgres: PostgresClient
  /** Never a connection string with credentials. */
  readonly description: string
  readonly embedded: boolean
  close(): Promise<void>
}

/**
 * Opens the server at `databaseUrl`, or embedded PGlite under `dataDir` (locked against a second process).
 * Everything started is stopped again when a later step fails.
 */
export async function openStorage(settings: {
  readonly databaseUrl?: string
  readonly dataDir: string
  readonly databasePool?: { readonly maxConnections?: number; readonly connectionTimeoutMs?: number }
}): Promise<Storage> {
  if (settings.databaseUrl) {
    const postgres = createPostgresClient({
      connectionString: settings.databaseUrl,
      maxConnections: settings.databasePool?.maxConnections ?? 10,
      ...(settings.databasePool?.connectionTimeoutMs === undefined
        ? {}
        : { connectionTimeoutMs: settings.databasePool.connectionTimeoutMs }),
    })
    return {
      postgres,
      description: 'Postgres from DATABASE_URL',
      embedded: false,
      close: () => postgres.close(),
    }
  }
  const lock = await lockDataDir(settings.dataDir)
  let embedded: Awaited<ReturnType<typeof startEmbeddedPostgres>>
  try {
    embedded = await startEmbeddedPostgres({ dataDir: settings.dataDir })
  } catch (error) {
    await lock.release()
    throw error
  }
  // PGlite is one session: a single pooled connection avoids queueing behind its lock.
  const postgres = createPostgresClient({ connectionString: embedded.connectionString, maxConnections: 1 })
  let closed: Promise<void> | undefined
  return {
    postgres,
    description: `embedded PGlite in ${settings.dataDir}`,
    embedded: true,
    close() {
      closed ??= postgres
        .close()
        .then(() => embedded.stop())
        .finally(() => lock.release())
      return closed
    },
  }
}
