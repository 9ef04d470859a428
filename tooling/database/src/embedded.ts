import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

export interface EmbeddedPostgresOptions {
  /** Directory for durable storage. Omitted: in memory, gone on `stop()`. */
  readonly dataDir?: string
  /** Loopback port. Default 0 (any free port). */
  readonly port?: number
  /** Connections served at once; PGlite is one session, so statements and transactions are serialized. */
  readonly maxConnections?: number
}

export interface EmbeddedPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, for the `pg` driver. */
  readonly connectionString: string
  stop(): Promise<void>
}

/**
 * PGlite (Postgres compiled to WASM) served over the Postgres wire protocol on loopback, so `pg` and
 * every Postgres store connect to it exactly as to a server.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres> {
  const db = options.dataDir === undefined ? new PGlite() : new PGlite(options.dataDir)
  await db.waitReady
  const server = new PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port: options.port ?? 0,
    maxConnections: options.maxConnections ?? 16,
  })
  try {
    await server.start()
  } catch (error) {
    await db.close()
    throw error
  }
  const address = server.getServerConn()
  let stopped: Promise<void> | undefined
  return {
    connectionString: `postgres://postgres@${address}/postgres`,
    stop() {
      stopped ??= server.stop().then(() => db.close())
      return stopped
    },
  }
}
