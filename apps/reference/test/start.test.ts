import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

/**
 * Runs `pnpm start` from the repository root, exactly as the README tells a newcomer to, with the
 * data folder pointed at a temporary path that does not exist yet (nested, so every parent is missing).
 */
const repositoryRoot = fileURLToPath(new URL('../../..', import.meta.url))
let dataRoot: string
let child: ChildProcess | undefined

beforeAll(async () => {
  dataRoot = await mkdtemp(join(tmpdir(), 'portcullis-app-'))
})
afterAll(async () => {
  await rm(dataRoot, { recursive: true, force: true })
})
afterEach(async () => {
  await stop()
})

function processTree(root: number): number[] {
  const children = spawnSync('pgrep', ['-P', String(root)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number)
  return [root, ...children.flatMap(processTree)]
}

/** Sends SIGTERM to the app (pnpm, sh and tsx each spawn a child: the whole tree, leaves first). */
async function stop(): Promise<void> {
  const running = child
  child = undefined
  if (running?.pid === undefined || running.exitCode !== null || running.signalCode !== null) return
  const exited = new Promise((resolve) => running.once('exit', resolve))
  for (const pid of processTree(running.pid).reverse()) {
    try {
      process.kill(pid, 'SIGTERM')
    } catch {
      // already gone
    }
  }
  await exited
}

interface Started {
  readonly url: string
  readonly output: string
}

function environment(overrides: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { DATABASE_URL: _ignored, ...env } = process.env
  return { ...env, ...overrides }
}

/** Resolves once the app prints its URL and the line about its data; rejects if it exits first. */
function pnpmStart(env: NodeJS.ProcessEnv): Promise<Started> {
  const running = spawn('pnpm', ['start'], { cwd: repositoryRoot, env, stdio: ['ignore', 'pipe', 'pipe'] })
  child = running
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`app did not start: ${output}`)), 120_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1]
      if (url && /^data: .*$/m.test(output)) {
        clearTimeout(timer)
        resolve({ url, output })
      }
    }
    running.stdout?.on('data', onData)
    running.stderr?.on('data', onData)
    running.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`app exited with ${code}: ${output}`))
    })
  })
}

/** Runs `pnpm start` expecting it to fail: its exit code and what it wrote to stderr. */
function pnpmStartFailing(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const running = spawn('pnpm', ['--silent', 'start'], {
    cwd: repositoryRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child = running
  return new Promise((resolve) => {
    let stderr = ''
    running.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    running.on('exit', (code) => resolve({ code, stderr }))
  })
}

describe('pnpm start on a fresh clone', () => {
  const dataDir = () => join(dataRoot, 'fresh', 'nested', 'pglite')

  it('creates the data folder, migrates, listens, serves / and /healthz, and says where', async () => {
    const started = await pnpmStart(environment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir() }))
    expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(started.output).toContain(`data: embedded PGlite in ${dataDir()}`)
    expect(started.output).toMatch(/applied migrations 1, 2/)
    const home = await fetch(`${started.url}/`)
    expect(home.status).toBe(200)
    expect(await home.text()).toContain('Portcullis')
    const health = await fetch(`${started.url}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ status: 'ok', checks: { database: 'ok' } })
  }, 150_000)

  it('starts again on the same data folder, keeping its data (nothing left to migrate)', async () => {
    const started = await pnpmStart(environment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir() }))
    expect(started.output).toMatch(/schema current at version \d+/)
    expect(started.output).not.toMatch(/applied migrations/)
    expect((await fetch(`${started.url}/healthz`)).status).toBe(200)
  }, 150_000)

  it('a port already in use is one line naming the port and PORT, not a stack trace', async () => {
    const blocker: Server = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const address = blocker.address()
    const port = typeof address === 'object' && address !== null ? address.port : 0
    try {
      const { code, stderr } = await pnpmStartFailing(
        environment({ PORT: String(port), PORTCULLIS_DATA_DIR: dataDir() }),
      )
      expect(code).not.toBe(0)
      const lines = stderr.split('\n').filter((line) => line.includes('portcullis'))
      expect(lines).toEqual([
        `portcullis reference app could not start: port ${port} on 127.0.0.1 is already in use; set PORT to a free port (for example PORT=${port + 1} pnpm start)`,
      ])
      expect(stderr).not.toMatch(/\n\s+at /)
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }
  }, 150_000)
})
