// The workspace's build lock: build-and-pack runs of concurrent test tasks never overlap, a lock whose
// holder died is taken over, a live holder is waited for (bounded), and a failing task releases it.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { withBuildLock } from '../src/build-lock.js'

let root: string
let path: string

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'portcullis-build-lock-'))
  path = join(root, 'build.lock')
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  })
  return Number.parseInt(child.stdout, 10)
}

describe('withBuildLock', () => {
  it('runs concurrent holders one after the other, never two at once', async () => {
    let inside = 0
    let most = 0
    const order: number[] = []
    const holder = (id: number) =>
      withBuildLock(
        async () => {
          inside += 1
          most = Math.max(most, inside)
          await pause(30)
          order.push(id)
          inside -= 1
          return id
        },
        { path, pollMs: 5 },
      )
    const results = await Promise.all([1, 2, 3, 4, 5].map(holder))
    expect(results).toEqual([1, 2, 3, 4, 5])
    expect(most).toBe(1)
    expect(order.sort()).toEqual([1, 2, 3, 4, 5])
    expect(existsSync(path)).toBe(false)
  })

  it('takes over a lock whose holder has exited', async () => {
    await mkdir(path)
    await writeFile(join(path, 'owner'), String(deadPid()))
    await expect(withBuildLock(async () => 'ran', { path, timeoutMs: 2_000, pollMs: 5 })).resolves.toBe('ran')
  })

  it('waits for a live holder and gives up at its bound, leaving the lock to its holder', async () => {
    await mkdir(path)
    await writeFile(join(path, 'owner'), String(process.pid))
    let ran = false
    await expect(
      withBuildLock(
        async () => {
          ran = true
        },
        { path, timeoutMs: 200, pollMs: 10 },
      ),
    ).rejects.toThrow(/still held by another process/)
    expect(ran).toBe(false)
    expect(existsSync(join(path, 'owner'))).toBe(true)
  })

  it('waits for a holder that has created the lock but not yet written its pid', async () => {
    await mkdir(path)
    await expect(withBuildLock(async () => 'ran', { path, timeoutMs: 200, pollMs: 10 })).rejects.toThrow(
      /still held/,
    )
  })

  it('never takes over a live lock whose pid is still being written (an empty owner file)', async () => {
    await mkdir(path)
    await writeFile(join(path, 'owner'), '')
    await expect(withBuildLock(async () => 'ran', { path, timeoutMs: 200, pollMs: 10 })).rejects.toThrow(
      /still held/,
    )
    expect(existsSync(join(path, 'owner'))).toBe(true)
  })

  it('releases the lock when the task throws', async () => {
    await expect(
      withBuildLock(
        async () => {
          throw new Error('build failed')
        },
        { path },
      ),
    ).rejects.toThrow('build failed')
    expect(existsSync(path)).toBe(false)
    await expect(withBuildLock(async () => 'next', { path })).resolves.toBe('next')
  })
})
