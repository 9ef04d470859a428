import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lockDataDir } from '../src/storage/data-lock.js'

/** The embedded database folder belongs to one process: the app and the CLI never open it at once. */
let directory: string
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'portcullis-lock-'))
})
afterAll(async () => {
  await rm(directory, { recursive: true, force: true })
})

describe('the embedded data folder lock', () => {
  it('refuses a second holder while the first lives, naming the process and the way out', async () => {
    const dataDir = join(directory, 'one', 'postgres')
    const lock = await lockDataDir(dataDir)
    await expect(lockDataDir(dataDir)).rejects.toThrow(
      `the embedded database in ${dataDir} is in use by process ${process.pid} (the app or the CLI); stop it first, or use DATABASE_URL`,
    )
    await lock.release()
    const again = await lockDataDir(dataDir)
    await again.release()
  })

  it('takes over the lock of a process that is gone', async () => {
    const dataDir = join(directory, 'two', 'postgres')
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    })
    await (await lockDataDir(dataDir)).release()
    await writeFile(`${dataDir}.lock`, gone.stdout)
    const lock = await lockDataDir(dataDir)
    expect(await readFile(`${dataDir}.lock`, 'utf8')).toBe(String(process.pid))
    await lock.release()
  })
})
