import { type ChildProcess, spawn } from 'node:child_process'
import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const vitestBin = new URL('../../../node_modules/.bin/vitest', import.meta.url).pathname
const fixtureConfig = new URL('./fixtures/run/vitest.config.ts', import.meta.url).pathname

/** Processes whose command line mentions `text` (the server's `-D <data dir>` does). */
async function processesMentioning(text: string): Promise<string[]> {
  const found: string[] = []
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
    if (cmdline.includes(text)) found.push(`${pid}: ${cmdline.replaceAll('\0', ' ')}`)
  }
  return found
}

/** A child vitest run of the fixture with its own TMPDIR and no database settings inherited. */
function fixtureRun(tmp: string, extra: Record<string, string> = {}): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp, ...extra }
  delete env.DATABASE_URL
  delete env.PORTCULLIS_TEST_POSTGRES_URL
  delete env.VITEST
  delete env.VITEST_POOL_ID
  delete env.VITEST_WORKER_ID
  return spawn(vitestBin, ['run', '--config', fixtureConfig], { env, stdio: ['ignore', 'pipe', 'pipe'] })
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })))
}

/**
 * What the database helper left in a run's TMPDIR (its data and password folders), less the shared copy
 * of the server programs, which is kept by design. Vitest's own temporary files are not its concern.
 */
async function leftIn(tmp: string): Promise<string[]> {
  return (await readdir(tmp)).filter(
    (name) => name.startsWith('portcullis-') && !name.startsWith('portcullis-pg-bin-'),
  )
}

async function waitFor(path: string, child: ChildProcess, timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await stat(path).catch(() => undefined)) return
    if (child.exitCode !== null) throw new Error('the fixture run ended before its server was up')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no ${path} within ${timeoutMs} ms`)
}

// Each test starts one or two child vitest runs, each with its own PostgreSQL (initdb included): seconds
// on an idle machine, over a minute on a loaded two-core one. The bounds below wait for an outcome with
// that margin; nothing here asserts how fast it came.
const RUN_TIMEOUT_MS = 300_000

describe.runIf(process.platform === 'linux')(
  'a test run on the embedded server leaves nothing behind',
  { timeout: RUN_TIMEOUT_MS },
  () => {
    it('after a passing run: no postgres process, no data directory', async () => {
      const tmp = await mktmp()
      try {
        const { code, output } = await exitOf(fixtureRun(tmp))
        expect(code, output).toBe(0)
        expect(output).toContain('1 passed')
        expect(await processesMentioning(tmp)).toEqual([])
        expect(await leftIn(tmp)).toEqual([])
      } finally {
        await rm(tmp, { recursive: true, force: true })
      }
    })

    it('after a failing run: the same', async () => {
      const tmp = await mktmp()
      try {
        const { code, output } = await exitOf(fixtureRun(tmp, { PORTCULLIS_FIXTURE_FAIL: '1' }))
        expect(code, output).toBe(1)
        expect(output).toContain('1 failed')
        expect(await processesMentioning(tmp)).toEqual([])
        expect(await leftIn(tmp)).toEqual([])
      } finally {
        await rm(tmp, { recursive: true, force: true })
      }
    })

    it('after a run killed with SIGKILL: the next run ends the orphaned server and removes its folder', async () => {
      const tmp = await mktmp()
      const marker = join(tmp, 'server-up')
      try {
        const killed = fixtureRun(tmp, { PORTCULLIS_FIXTURE_MARKER: marker })
        const exited = exitOf(killed)
        await waitFor(marker, killed)
        killed.kill('SIGKILL')
        await exited
        // Nothing could clean up: the server outlives the run, its folder stays.
        expect((await processesMentioning(tmp)).length).toBeGreaterThan(0)
        expect((await leftIn(tmp)).length).toBeGreaterThan(0)
        const { code, output } = await exitOf(fixtureRun(tmp))
        expect(code, output).toBe(0)
        expect(await processesMentioning(tmp)).toEqual([])
        expect(await leftIn(tmp)).toEqual([])
      } finally {
        await rm(tmp, { recursive: true, force: true })
      }
    })

    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      it(`after a run interrupted by ${signal} while a test holds a database`, async () => {
        const tmp = await mktmp()
        const marker = join(tmp, 'server-up')
        try {
          const child = fixtureRun(tmp, { PORTCULLIS_FIXTURE_MARKER: marker })
          const exited = exitOf(child)
          await waitFor(marker, child)
          expect(await readFile(marker, 'utf8')).toMatch(/^18\./)
          expect((await processesMentioning(tmp)).length).toBeGreaterThan(0)
          child.kill(signal)
          await exited
          // The server may take a moment to finish its shutdown after the run is gone.
          const deadline = Date.now() + 60_000
          while ((await processesMentioning(tmp)).length > 0 && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 100))
          }
          expect(await processesMentioning(tmp)).toEqual([])
          expect(await leftIn(tmp)).toEqual([])
        } finally {
          await rm(tmp, { recursive: true, force: true })
        }
      })
    }
  },
)

/** A private TMPDIR for one child run (traversable, as /tmp is, so the server's user reaches its data). */
async function mktmp(): Promise<string> {
  const tmp = await mkdtemp(join(tmpdir(), 'portcullis-run-'))
  await chmod(tmp, 0o711)
  return tmp
}
