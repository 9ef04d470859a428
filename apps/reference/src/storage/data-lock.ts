import { mkdir, open, readFile, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'

/** Held while a process uses the embedded database; `release` is idempotent. */
export interface DataLock {
  release(): Promise<void>
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
 * The embedded database folder belongs to one process at a time: a second one (the CLI while the app
 * runs) would find its server running and stop it. The lock is a file beside the data folder holding the
 * owner's pid; a lock whose process is gone (the app was killed) is taken over, and the server that
 * process left running is then stopped and started again.
 */
export async function lockDataDir(dataDir: string): Promise<DataLock> {
  const path = `${dataDir}.lock`
  await mkdir(dirname(path), { recursive: true })
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(path, 'wx', 0o600)
      await handle.writeFile(String(process.pid))
      await handle.close()
      let released: Promise<void> | undefined
      return {
        release() {
          released ??= unlink(path).catch(() => undefined)
          return released
        },
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim())
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
        throw new Error(
          `the embedded database in ${dataDir} is in use by process ${owner} (the app or the CLI); stop it first, or use DATABASE_URL`,
        )
      }
      await unlink(path).catch(() => undefined)
    }
  }
  throw new Error(`the embedded database in ${dataDir} could not be locked (${path})`)
}
