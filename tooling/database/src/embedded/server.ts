import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { EmbeddedPostgresError, type PostgresBinaries } from './binaries.js'

const START_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 15_000

/** A random password of URL-safe characters (it goes into a connection string as is). */
export function newPassword(): string {
  return randomBytes(24).toString('base64url')
}

/** A port that was free on loopback a moment ago (the server start retries when it is taken since). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.unref()
    probe.on('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

function collect(child: ChildProcess): () => string {
  let output = ''
  const add = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8_000)
  }
  child.stdout?.on('data', add)
  child.stderr?.on('data', add)
  return () => output.trim()
}

/** Creates the data directory (owned by the user the server runs as) and runs `initdb` in it. */
export async function initialiseCluster(
  binaries: PostgresBinaries,
  dataDir: string,
  password: string,
  options: { readonly durable: boolean },
): Promise<void> {
  // Parents keep the default mode (the server's user must traverse them); the cluster folder is private.
  await mkdir(dirname(dataDir), { recursive: true })
  await mkdir(dataDir, { mode: 0o700 })
  if (binaries.runAs) {
    await chown(dataDir, binaries.runAs.uid, binaries.runAs.gid)
    assertReachable(dataDir, binaries.runAs)
  }
  // initdb reads the password from a file: one only the server's user can read, removed at once.
  const secretDir = await mkdtemp(join(tmpdir(), 'portcullis-pwfile-'))
  const passwordFile = join(secretDir, 'password')
  try {
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 })
    if (binaries.runAs) {
      await chown(secretDir, binaries.runAs.uid, binaries.runAs.gid)
      await chown(passwordFile, binaries.runAs.uid, binaries.runAs.gid)
    }
    const [file, ...args] = [
      ...binaries.prefix,
      binaries.initdb,
      `--pgdata=${dataDir}`,
      '--username=postgres',
      '--auth=scram-sha-256',
      `--pwfile=${passwordFile}`,
      '--encoding=UTF8',
      '--locale=C',
      '--no-instructions',
      ...(options.durable ? [] : ['--no-sync']),
    ]
    const child = spawn(file ?? binaries.initdb, args, {
      ...binaries.runAs,
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const output = collect(child)
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject)
      child.on('close', resolve)
    })
    if (code !== 0) {
      throw new EmbeddedPostgresError(`initdb failed in ${dataDir} (exit ${code}): ${output()}`)
    }
  } finally {
    await rm(secretDir, { recursive: true, force: true })
  }
}
/**
 * Without user namespaces, root runs the server as the `postgres` user, which must reach the data
 * directory: a checkout under `/root` (mode 0700) is out of its reach. Said in one sentence instead of an
 * initdb error.
 */
export function assertReachable(
  dataDir: string,
  runAs: { readonly uid: number; readonly gid: number },
): void {
  const probe = spawnSync('test', ['-w', dataDir], { ...runAs })
  if (probe.status !== 0) {
    throw new EmbeddedPostgresError(
      `the "postgres" user that runs the embedded server cannot reach ${dataDir} (PostgreSQL refuses to run as root): choose a data folder outside private directories such as /root, run as another user, or set DATABASE_URL`,
    )
  }
}

export interface RunningServer {
  readonly pid: number
  readonly port: number
  /** Fast shutdown (SIGINT), then an immediate one if it takes too long; resolves once it has exited. */
  stop(): Promise<void>
}

/**
 * Starts `postgres` on a loopback port only (no Unix socket) and resolves once it accepts connections.
 * A port taken between choosing and binding is retried with another.
 */
export async function startServer(
  binaries: PostgresBinaries,
  dataDir: string,
  settings: Readonly<Record<string, string>>,
): Promise<RunningServer> {
  let lastError: unknown
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freeLoopbackPort()
    try {
      return await startOn(binaries, dataDir, port, settings)
    } catch (error) {
      lastError = error
      if (!(error instanceof EmbeddedPostgresError && /could not bind|in use/i.test(error.message))) break
    }
  }
  throw lastError
}

function startOn(
  binaries: PostgresBinaries,
  dataDir: string,
  port: number,
  settings: Readonly<Record<string, string>>,
): Promise<RunningServer> {
  const flags = Object.entries({
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '',
    lc_messages: 'C',
    ...settings,
  }).flatMap(([name, value]) => ['-c', `${name}=${value}`])
  const [file, ...args] = [...binaries.prefix, binaries.postgres, '-D', dataDir, '-p', String(port), ...flags]
  // `unshare` replaces itself with the server: the child's pid is the postmaster's.
  const child = spawn(file ?? binaries.postgres, args, {
    ...binaries.runAs,
    env: { ...process.env, LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = collect(child)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT')
      const force = setTimeout(() => child.kill('SIGQUIT'), STOP_TIMEOUT_MS)
      void exited.then(() => clearTimeout(force))
    }
    return exited
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop()
      reject(new EmbeddedPostgresError(`PostgreSQL did not start within ${START_TIMEOUT_MS} ms: ${output()}`))
    }, START_TIMEOUT_MS)
    const onData = () => {
      if (!output().includes('database system is ready to accept connections')) return
      clearTimeout(timer)
      child.stderr?.off('data', onData)
      // Keep draining the server's log so a full pipe never blocks it.
      child.stderr?.resume()
      resolve({ pid: child.pid ?? 0, port, stop })
    }
    child.stderr?.on('data', onData)
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(new EmbeddedPostgresError(`PostgreSQL could not be started: ${error.message}`, { cause: error }))
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new EmbeddedPostgresError(`PostgreSQL exited at start (${signal ?? code}): ${output()}`))
    })
  })
}
