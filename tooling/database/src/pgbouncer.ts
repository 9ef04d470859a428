import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { chmod, chown, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { delimiter, join } from 'node:path'
import { NAMESPACE_PREFIX, namespacesWork, postgresUser } from './embedded/binaries.js'
import { freeLoopbackPort } from './embedded/server.js'

const PREFIX = 'portcullis-pgbouncer-'
const START_TIMEOUT_MS = 20_000
const STOP_TIMEOUT_MS = 5_000
const SYSTEM_PATHS = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer']

/** The `pgbouncer` program (Debian's `pgbouncer` package), or undefined when none is installed. */
export function pgbouncerPath(): string | undefined {
  const onPath = (process.env.PATH ?? '').split(delimiter).map((folder) => join(folder, 'pgbouncer'))
  return [...SYSTEM_PATHS, ...onPath].find((path) => path !== 'pgbouncer' && existsSync(path))
}

/** Why the PgBouncer tests skip on this machine, or undefined when they can run. */
export function pgbouncerMissing(): string | undefined {
  return pgbouncerPath() === undefined
    ? "PgBouncer tests skipped: no pgbouncer program (install Debian's pgbouncer: apt-get install -y pgbouncer)"
    : undefined
}

export interface PgBouncerOptions {
  /**
   * A `postgres://user:password@host:port/database` URL of the server to pool (any database on it: every
   * database name is forwarded as is). Its user, with its password, is the one user PgBouncer admits.
   */
  readonly upstream: string
  /** `pool_mode`. Default `transaction`: a server connection belongs to a client for one transaction. */
  readonly poolMode?: 'transaction' | 'session' | 'statement'
  /** `default_pool_size`: server connections per database and user. Default 20. */
  readonly poolSize?: number
  /**
   * `ignore_startup_parameters`: parameters PgBouncer accepts from clients and drops (as many deployments
   * set for `statement_timeout`, `options`, `extra_float_digits`). Default none (the stock setting).
   */
  readonly ignoreStartupParameters?: readonly string[]
  /** As root: `false` skips the user-namespace strategy and runs PgBouncer as the `postgres` user. */
  readonly userNamespaces?: boolean
}

export interface PgBouncer {
  readonly host: string
  readonly port: number
  /** The PgBouncer process. */
  readonly pid: number
  /** Its folder (configuration, user list), removed by `stop()`. */
  readonly directory: string
  /** Rewrites a `postgres://` URL of the upstream server so it goes through PgBouncer (same database). */
  through(connectionString: string): string
  /** What PgBouncer logged so far (the last 64 KiB), e.g. to look for `when not linked`. */
  log(): string
  /** Stops PgBouncer (immediate shutdown) and removes its folder. Idempotent. */
  stop(): Promise<void>
}

/** Thrown when PgBouncer is missing or does not start; the message says what to do. */
export class PgBouncerError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PgBouncerError'
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Ends the PgBouncers and removes the folders that processes which died without stopping them left
 * (a test run killed mid-way): each folder names its owner (`owner.pid`) and its PgBouncer (`child.pid`).
 */
export async function sweepAbandonedPgBouncers(root = tmpdir()): Promise<number> {
  let swept = 0
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!name.startsWith(PREFIX)) continue
    const folder = join(root, name)
    const owner = Number.parseInt(await readFile(join(folder, 'owner.pid'), 'utf8').catch(() => ''), 10)
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) continue
    // A folder another process created a moment ago may not have its owner file yet.
    const made = await stat(folder).catch(() => undefined)
    if (Number.isNaN(owner) && made !== undefined && Date.now() - made.mtimeMs < 60_000) continue
    const child = Number.parseInt(await readFile(join(folder, 'child.pid'), 'utf8').catch(() => ''), 10)
    if (Number.isInteger(child) && child > 0 && alive(child)) {
      const command = (() => {
        try {
          return readFileSync(`/proc/${child}/cmdline`, 'utf8')
        } catch {
          return ''
        }
      })()
      if (command.includes('pgbouncer')) process.kill(child, 'SIGKILL')
    }
    await rm(folder, { recursive: true, force: true })
    swept += 1
  }
  return swept
}

/** How the program is started: PgBouncer refuses to run as root, like PostgreSQL. */
function launcher(
  program: string,
  userNamespaces: boolean,
): {
  readonly file: string
  readonly args: readonly string[]
  readonly runAs?: { readonly uid: number; readonly gid: number }
} {
  if (userInfo().uid !== 0) return { file: program, args: [] }
  if (userNamespaces && namespacesWork()) {
    const [file = 'unshare', ...rest] = NAMESPACE_PREFIX
    return { file, args: [...rest, program] }
  }
  return { file: program, args: [], runAs: postgresUser() }
}

function configuration(upstream: URL, port: number, folder: string, options: PgBouncerOptions): string {
  return [
    '[databases]',
    `* = host=${upstream.hostname} port=${upstream.port || '5432'}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(folder, 'userlist.txt')}`,
    `pool_mode = ${options.poolMode ?? 'transaction'}`,
    'max_client_conn = 800',
    `default_pool_size = ${options.poolSize ?? 20}`,
    'log_connections = 0',
    ...(options.ignoreStartupParameters?.length
      ? [`ignore_startup_parameters = ${options.ignoreStartupParameters.join(', ')}`]
      : []),
    'log_disconnections = 0',
    '',
  ].join('\n')
}

/**
 * A real PgBouncer (the system's `pgbouncer` program) on a free loopback port, in front of `upstream`,
 * in transaction mode unless told otherwise, with the stock settings otherwise (no startup parameter is
 * ignored). Clients are admitted without a password (loopback only); PgBouncer signs in to the server as
 * the upstream URL's user with its password. As root it runs in a user namespace, or as the `postgres`
 * user where namespaces are not available. Stopped with `stop()`, and when the process exits.
 */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const program = pgbouncerPath()
  if (program === undefined) throw new PgBouncerError(pgbouncerMissing() ?? 'no pgbouncer')
  const upstream = new URL(options.upstream)
  const user = decodeURIComponent(upstream.username || 'postgres')
  const password = decodeURIComponent(upstream.password)
  await sweepAbandonedPgBouncers().catch(() => 0)
  const folder = await mkdtemp(join(tmpdir(), PREFIX))
  await writeFile(join(folder, 'owner.pid'), String(process.pid))
  const { file, args, runAs } = launcher(program, options.userNamespaces ?? true)
  let lastError: unknown
  try {
    await writeFile(
      join(folder, 'userlist.txt'),
      `"${user.replaceAll('"', '""')}" "${password.replaceAll('"', '""')}"\n`,
      {
        mode: 0o600,
      },
    )
    if (runAs) {
      await chmod(folder, 0o700)
      await chown(folder, runAs.uid, runAs.gid)
      await chown(join(folder, 'userlist.txt'), runAs.uid, runAs.gid)
    }
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const port = await freeLoopbackPort()
      const ini = join(folder, 'pgbouncer.ini')
      await writeFile(ini, configuration(upstream, port, folder, options), { mode: 0o600 })
      if (runAs) await chown(ini, runAs.uid, runAs.gid)
      try {
        return await run(file, [...args, ini], runAs, port, upstream, folder)
      } catch (error) {
        lastError = error
        if (!(error instanceof PgBouncerError && /in use|bind/i.test(error.message))) break
      }
    }
  } catch (error) {
    lastError = error
  }
  await rm(folder, { recursive: true, force: true })
  throw lastError
}

function run(
  file: string,
  args: readonly string[],
  runAs: { readonly uid: number; readonly gid: number } | undefined,
  port: number,
  upstream: URL,
  folder: string,
): Promise<PgBouncer> {
  const child: ChildProcess = spawn(file, args, { ...runAs, stdio: ['ignore', 'pipe', 'pipe'] })
  if (child.pid !== undefined) writeFileSync(join(folder, 'child.pid'), String(child.pid))
  let output = ''
  const add = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-65_536)
  }
  child.stdout?.on('data', add)
  child.stderr?.on('data', add)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const onExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  process.on('exit', onExit)
  let stopped: Promise<void> | undefined
  const stop = () => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
        await exited
        clearTimeout(force)
      }
      process.off('exit', onExit)
      await rm(folder, { recursive: true, force: true })
    })()
    return stopped
  }
  const pooled = { host: '127.0.0.1', port: String(port) }
  return new Promise((resolve, reject) => {
    let started = false
    const fail = (message: string) => {
      if (started) return
      clearTimeout(timer)
      process.off('exit', onExit)
      onExit()
      reject(new PgBouncerError(message))
    }
    const timer = setTimeout(
      () => fail(`PgBouncer did not start within ${START_TIMEOUT_MS} ms: ${output.trim()}`),
      START_TIMEOUT_MS,
    )
    const onData = () => {
      if (!output.includes('process up')) return
      started = true
      clearTimeout(timer)
      child.stderr?.off('data', onData)
      child.stdout?.off('data', onData)
      resolve({
        host: pooled.host,
        port,
        pid: child.pid ?? 0,
        directory: folder,
        through(connectionString) {
          const url = new URL(connectionString)
          if (url.hostname !== upstream.hostname || (url.port || '5432') !== (upstream.port || '5432')) {
            throw new PgBouncerError('through() takes a URL of the upstream server')
          }
          url.hostname = pooled.host
          url.port = pooled.port
          return url.toString()
        },
        log: () => output,
        stop,
      })
    }
    child.stderr?.on('data', onData)
    child.stdout?.on('data', onData)
    child.once('error', (error) => fail(`PgBouncer could not be started: ${error.message}`))
    child.once('exit', (code, signal) =>
      fail(`PgBouncer exited at start (${signal ?? code}): ${output.trim()}`),
    )
  })
}
