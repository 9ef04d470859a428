import { mkdir, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

export interface EmbeddedPostgresOptions {
  /**
   * Directory for durable storage, created with its parents when missing. A path that exists and is
   * not a directory is refused. Omitted: in memory, gone on `stop()`.
   */
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
  const db = options.dataDir === undefined ? new PGlite() : new PGlite(await prepareDataDir(options.dataDir))
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

/** Thrown when the data directory cannot be used; the message names the path and what is wrong. */
export class EmbeddedDataDirError extends Error {
  readonly path: string
  constructor(path: string, problem: string, options?: { cause?: unknown }) {
    super(`embedded Postgres data directory ${path} ${problem}`, options)
    this.name = 'EmbeddedDataDirError'
    this.path = path
  }
}

/** Creates the data directory with its parents (PGlite itself creates only the last segment). */
async function prepareDataDir(dataDir: string): Promise<string> {
  const path = resolve(dataDir)
  const existing = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw new EmbeddedDataDirError(path, `cannot be read (${error.code ?? 'error'})`, { cause: error })
  })
  if (existing !== undefined && !existing.isDirectory()) {
    throw new EmbeddedDataDirError(path, 'exists and is not a directory')
  }
  if (existing === undefined) {
    await mkdir(path, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
      throw new EmbeddedDataDirError(path, `cannot be created (${error.code ?? 'error'})`, { cause: error })
    })
  }
  return path
}
