import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { readFile, rm, stat, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Prefix of the temporary folders of ephemeral servers (never the binary cache). */
export const EPHEMERAL_PREFIX = 'portcullis-pgdata-'

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Whether `pid` is a PostgreSQL server process (on Linux from `/proc`; elsewhere any live process). */
export function isPostgres(pid: number): boolean {
  if (!alive(pid)) return false
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres'
  } catch {
    return process.platform !== 'linux'
  }
}

/** The postmaster's pid from `postmaster.pid` in a data directory, when that file exists. */
export function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number.parseInt(
      readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '',
      10,
    )
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/**
 * Ends a postmaster at once (immediate shutdown, SIGQUIT) and waits for it synchronously: usable from a
 * `process.on('exit')` hook, where nothing asynchronous runs any more.
 */
export function endServerSync(pid: number, timeoutMs = 5_000): void {
  if (!alive(pid)) return
  try {
    process.kill(pid, 'SIGQUIT')
  } catch {
    return
  }
  const deadline = Date.now() + timeoutMs
  while (alive(pid) && Date.now() < deadline) sleepSync(20)
  if (alive(pid)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  }
}

/** Ends a postmaster with a fast shutdown (SIGINT), escalating to SIGQUIT, and waits for it. */
export async function endServer(pid: number, timeoutMs = 15_000): Promise<void> {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGQUIT', 'SIGKILL']
  for (const signal of signals) {
    if (!alive(pid)) return
    try {
      process.kill(pid, signal)
    } catch {
      return
    }
    const deadline = Date.now() + timeoutMs
    while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/**
 * A durable data directory whose last server was not shut down: a crash, or `kill -9` of the process
 * that owned it. A postmaster still running there is stopped; a `postmaster.pid` naming a process that
 * is gone (or is not PostgreSQL) is removed. Callers hold the folder's lock, so a running server here
 * belongs to nobody.
 */
export async function recoverDataDir(
  dataDir: string,
): Promise<'server-left-running' | 'stale-pid-file' | undefined> {
  const pid = postmasterPid(dataDir)
  if (pid === undefined) return undefined
  if (isPostgres(pid)) {
    await endServer(pid)
    if (!alive(pid)) await unlink(join(dataDir, 'postmaster.pid')).catch(() => undefined)
    return 'server-left-running'
  }
  await unlink(join(dataDir, 'postmaster.pid')).catch(() => undefined)
  return 'stale-pid-file'
}

/**
 * Ephemeral servers of earlier runs whose owning process is gone (a run killed with SIGKILL): their
 * server is ended and their folder removed.
 */
export async function sweepAbandoned(root = tmpdir()): Promise<number> {
  let swept = 0
  for (const name of readdirSync(root)) {
    if (!name.startsWith(EPHEMERAL_PREFIX)) continue
    const folder = join(root, name)
    const owner = Number.parseInt(await readFile(join(folder, 'owner.pid'), 'utf8').catch(() => ''), 10)
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) continue
    // A folder another process created a moment ago may not have its owner file yet.
    if (Number.isNaN(owner) && Date.now() - (await stat(folder)).mtimeMs < 60_000) continue
    const pid = postmasterPid(join(folder, 'data'))
    if (pid !== undefined && isPostgres(pid)) await endServer(pid, 5_000)
    await rm(folder, { recursive: true, force: true })
    swept += 1
  }
  return swept
}

/** Synchronous removal for exit hooks. */
export function removeSync(folder: string): void {
  rmSync(folder, { recursive: true, force: true })
}
