// The commands the pack test runs (pnpm, turbo, npm, node) never outlive their bound: at the timeout the
// command and everything it started are killed, and the result says so with a non-zero code.
import { describe, expect, it } from 'vitest'
import { run, runOrThrow } from '../src/commands.js'

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('run', () => {
  it('kills the command and the processes it started at the timeout', async () => {
    // sh starts a long sleep in the background, prints its pid, and waits for it
    const started = Date.now()
    const result = await run('sh', ['-c', 'sleep 60 & echo $!; wait'], { cwd: process.cwd(), timeoutMs: 500 })
    expect(Date.now() - started).toBeLessThan(30_000)
    expect(result.code).not.toBe(0)
    const grandchild = Number.parseInt(result.stdout.trim(), 10)
    expect(Number.isSafeInteger(grandchild)).toBe(true)
    const deadline = Date.now() + 5_000
    while (alive(grandchild) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(alive(grandchild)).toBe(false)
  })

  it('resolves with the exit code and output of a command that ends by itself', async () => {
    const result = await run('sh', ['-c', 'echo out; echo err >&2; exit 3'], {
      cwd: process.cwd(),
      timeoutMs: 30_000,
    })
    expect(result).toEqual({ code: 3, stdout: 'out\n', stderr: 'err\n' })
    await expect(
      runOrThrow('sh', ['-c', 'exit 4'], { cwd: process.cwd(), timeoutMs: 30_000 }),
    ).rejects.toThrow(/exited with 4/)
  })

  it('rejects when the command cannot start at all', async () => {
    await expect(
      run('portcullis-no-such-command', [], { cwd: process.cwd(), timeoutMs: 30_000 }),
    ).rejects.toThrow(/ENOENT/)
  })
})
