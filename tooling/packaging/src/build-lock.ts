import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { WORKSPACE_ROOT } from './workspace.js'

/**
 * The lock every build-and-pack of this workspace takes: test tasks that run at the same time (the pack
 * test, the Next.js example) would otherwise run turbo builds that write the same `dist/` folders while
 * another packs them. The second one waits, then finds turbo's cache filled by the first.
 */
export const BUILD_LOCK = join(WORKSPACE_ROOT, 'node_modules', '.cache', 'portcullis-packaging', 'build.lock')

/** A lock folder without its owner's pid after this long was left by a process that died taking it. */
const OWNERLESS_AFTER_MS = 10_000

export interface BuildLockOptions {
  readonly path?: string
  /** Gives up (rejects) after waiting this long for another holder. */
  readonly timeoutMs?: number
  readonly pollMs?: number
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** True when the lock folder at `path` belongs to no live process (its holder died). */
async function abandoned(path: string): Promise<boolean> {
  const owner = await readFile(join(path, 'owner'), 'utf8').catch(() => undefined)
  const pid = owner === undefined ? Number.NaN : Number.parseInt(owner, 10)
  if (Number.isSafeInteger(pid)) return !alive(pid)
  // no pid yet (the holder has just created the folder) or gone meanwhile: abandoned only when the folder
  // has stayed without one for long
  const created = await stat(path).catch(() => undefined)
  return created !== undefined && Date.now() - created.mtimeMs > OWNERLESS_AFTER_MS
}

/**
 * Runs `task` holding the workspace's build lock (a folder created atomically, with the holder's pid),
 * released when `task` settles. A lock whose holder is gone is taken over.
 */
export async function withBuildLock<T>(task: () => Promise<T>, options: BuildLockOptions = {}): Promise<T> {
  const path = options.path ?? BUILD_LOCK
  const deadline = Date.now() + (options.timeoutMs ?? 900_000)
  await mkdir(join(path, '..'), { recursive: true })
  for (;;) {
    try {
      await mkdir(path)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    if (await abandoned(path)) {
      await rm(path, { recursive: true, force: true })
      continue
    }
    if (Date.now() > deadline) throw new Error(`the build lock ${path} is still held by another process`)
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250))
  }
  try {
    // written beside, then renamed: a waiting process never reads a half-written pid
    await writeFile(join(path, 'owner.next'), String(process.pid))
    await rename(join(path, 'owner.next'), join(path, 'owner'))
    return await task()
  } finally {
    await rm(path, { recursive: true, force: true })
  }
}
