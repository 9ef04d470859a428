import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { expectPrinted, printedSamples } from './support/printed-samples.js'

/**
 * Runs `pnpm start` from the repository root, exactly as the README tells a newcomer to, with the
 * data folder pointed at a temporary path that does not exist yet (nested, so every parent is missing).
 * The cases about the app's own behaviour (restarts, a folder in use, a killed app, a busy port) start
 * the process `pnpm start` ends in (`node` with tsx's loader on `src/main.ts`) without the two pnpm
 * processes, the shell and tsx's relay in front of it: a second or so of CPU less per start.
 */
const repositoryRoot = fileURLToPath(new URL('../../..', import.meta.url))
const appRoot = fileURLToPath(new URL('..', import.meta.url))
let dataRoot: string
let child: ChildProcess | undefined

beforeAll(async () => {
  dataRoot = await mkdtemp(join(tmpdir(), 'portcullis-app-'))
  // Traversable like /tmp itself: as root the database server runs as the postgres user.
  await chmod(dataRoot, 0o711)
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

function isPostgres(pid: number): boolean {
  return spawnSync('cat', [`/proc/${pid}/comm`], { encoding: 'utf8' }).stdout.trim() === 'postgres'
}

/** PostgreSQL processes whose command line names `dataDir` (the server is started with `-D <dataDir>`). */
async function serversOn(dataDir: string): Promise<number[]> {
  const found: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    if (cmdline.split('\0').includes(dataDir)) found.push(Number(entry))
  }
  return found
}

/**
 * Signals the app (pnpm, sh and tsx each spawn a child: the whole tree, leaves first), but not the
 * database server it started: stopping that is the app's job.
 */
async function stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const running = child
  child = undefined
  if (running?.pid === undefined || running.exitCode !== null || running.signalCode !== null) return
  const exited = new Promise((resolve) => running.once('exit', resolve))
  const app = processTree(running.pid)
    .reverse()
    .filter((pid) => !isPostgres(pid))
  for (const pid of app) {
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
  }
  await exited
  // pnpm may exit before the app's own process has finished shutting down: wait for every one of them.
  const deadline = Date.now() + 30_000
  while (app.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * What differs between a sample in the docs and a test's start: the data folder (`.../apps/reference/.data`
 * or `/path/to/portcullis/apps/reference/.data` in the docs), the ports, and how long initdb took.
 */
function startNormalizer(dataRoot: string): (line: string) => string {
  return (line) =>
    line
      .replaceAll(dataRoot, '<data>')
      .replace(/(\.\.\.|\/path\/to\/portcullis)\/apps\/reference\/\.data/g, '<data>')
      .replace(/http:\/\/(127\.0\.0\.1|localhost):\d+/g, 'http://$1:<port>')
      .replace(/initdb took \d+(\.\d+)? s/, 'initdb took <time> s')
}

interface Started {
  readonly url: string
  readonly output: string
}

function environment(overrides: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { DATABASE_URL: _ignored, ...env } = process.env
  return { ...env, ...overrides }
}

/** How a case starts the app: `pnpm start` at the repository root, or the app's node process alone. */
type Launcher = 'pnpm start' | 'node'

function launch(launcher: Launcher, env: NodeJS.ProcessEnv, silent = false): ChildProcess {
  const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe']
  if (launcher === 'node') {
    // what `tsx --conditions=@portcullis/source src/main.ts` (the app's start script) runs
    const args = ['--conditions=@portcullis/source', '--import', 'tsx', 'src/main.ts']
    return spawn(process.execPath, args, { cwd: appRoot, env, stdio })
  }
  return spawn('pnpm', silent ? ['--silent', 'start'] : ['start'], { cwd: repositoryRoot, env, stdio })
}

/** Resolves once the app prints its URL and the line about its data; rejects if it exits first. */
function start(env: NodeJS.ProcessEnv, launcher: Launcher = 'pnpm start'): Promise<Started> {
  const running = launch(launcher, env)
  child = running
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`app did not start: ${output}`)), 120_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1]
      if (url && /stop with Ctrl\+C/.test(output)) {
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

/** Starts the app expecting it to fail: its exit code and what it wrote to stderr. */
function startFailing(
  env: NodeJS.ProcessEnv,
  launcher: Launcher = 'pnpm start',
): Promise<{ code: number | null; stderr: string }> {
  const running = launch(launcher, env, true)
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
  const dataDir = () => join(dataRoot, 'fresh', 'nested', 'postgres')

  it('creates the data folder, migrates, listens, serves / and /healthz, and says where and how long initdb took', async () => {
    const started = await start(environment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir() }))
    expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(started.output).toMatch(
      new RegExp(`data: embedded PostgreSQL in ${dataDir()}; first start, initdb took \\d+\\.\\d s`),
    )
    expect(started.output).not.toContain('postgres://')
    expect(started.output).toMatch(/applied migrations 1, 2/)
    // The one URL an MCP client needs: it finds the authorization server from the endpoint's 401.
    expect(started.output).toContain(`MCP URL to give a client: ${started.url}/mcp`)
    // What the README and the docs show of a first start is what it printed, migrations included.
    const samples = printedSamples('pnpm-start')
    expect(samples.length).toBeGreaterThanOrEqual(3)
    for (const sample of samples) expectPrinted(sample, started.output, startNormalizer(dirname(dataDir())))
    const home = await fetch(`${started.url}/`)
    expect(home.status).toBe(200)
    expect(await home.text()).toContain('Portcullis')
    const health = await fetch(`${started.url}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ status: 'ok', checks: { database: 'ok' } })
  }, 150_000)

  it('stops its database server on SIGTERM, and starts again on the same folder keeping its data', async () => {
    expect(await serversOn(dataDir())).toEqual([])
    const started = await start(environment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir() }), 'node')
    expect(started.output).toMatch(/schema current at version \d+/)
    expect(started.output).not.toMatch(/applied migrations|initdb took/)
    expect((await fetch(`${started.url}/healthz`)).status).toBe(200)
    expect((await serversOn(dataDir())).length).toBeGreaterThan(0)
    await stop('SIGTERM')
    expect(await serversOn(dataDir())).toEqual([])
  }, 150_000)

  it('stops its database server on SIGINT (Ctrl+C)', async () => {
    await start(environment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir() }))
    expect((await serversOn(dataDir())).length).toBeGreaterThan(0)
    await stop('SIGINT')
    expect(await serversOn(dataDir())).toEqual([])
  }, 150_000)

  it('a second start on the same folder says in one line that the folder is in use', async () => {
    await start(environment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir() }), 'node')
    const running = child
    child = undefined
    const { code, stderr } = await startFailing(
      environment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir() }),
      'node',
    )
    expect(code).not.toBe(0)
    const lines = stderr.split('\n').filter((line) => line.includes('portcullis'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      new RegExp(`could not start: the embedded database in ${dataDir()} is in use by process \\d+`),
    )
    child = running
  }, 150_000)

  it('after the app was killed with SIGKILL, the next start stops the server it left and serves the same data', async () => {
    const first = await start(environment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir() }), 'node')
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200)
    const left = await serversOn(dataDir())
    expect(left.length).toBeGreaterThan(0)
    await stop('SIGKILL')
    // Nothing ran to stop it: the server outlives the app.
    expect((await serversOn(dataDir())).length).toBeGreaterThan(0)
    const next = await start(environment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir() }), 'node')
    expect(next.output).toContain(
      'note: a server left running by an earlier start (the app was killed) was stopped',
    )
    expect(next.output).toMatch(/schema current at version \d+/)
    expect((await fetch(`${next.url}/healthz`)).status).toBe(200)
    for (const pid of left) expect((await serversOn(dataDir())).includes(pid)).toBe(false)
  }, 150_000)

  it('names a PGlite folder left by an earlier version and says what to do with it', async () => {
    const legacy = join(dataRoot, 'fresh', 'nested', 'pglite')
    await mkdir(legacy, { recursive: true })
    const started = await start(environment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir() }), 'node')
    expect(started.output).toContain(
      `note: an earlier version's PGlite data is in ${legacy}; this version keeps its data in embedded PostgreSQL in ${dataDir()} and does not read it (nothing was imported): delete ${legacy} once you no longer need it`,
    )
  }, 150_000)

  it('a port already in use is one line naming the port and PORT, not a stack trace', async () => {
    const blocker: Server = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const address = blocker.address()
    const port = typeof address === 'object' && address !== null ? address.port : 0
    try {
      const { code, stderr } = await startFailing(
        environment({ PORT: String(port), PORTCULLIS_DATA_DIR: dataDir() }),
        'node',
      )
      expect(code).not.toBe(0)
      const lines = stderr.split('\n').filter((line) => line.includes('portcullis'))
      expect(lines).toEqual([
        `portcullis reference app could not start: port ${port} on 127.0.0.1 is already in use; set PORT to a free port (for example PORT=${port + 1} pnpm start)`,
      ])
      const samples = printedSamples('pnpm-start-port-in-use')
      expect(samples.length).toBeGreaterThan(0)
      // The docs' sample is on port 3000.
      for (const sample of samples) {
        expectPrinted(sample, stderr, (line) =>
          line.replace(`port ${port} `, 'port 3000 ').replace(`PORT=${port + 1} `, 'PORT=3001 '),
        )
      }
      expect(stderr).not.toMatch(/\n\s+at /)
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }
  }, 150_000)
})
