import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const appRoot = fileURLToPath(new URL('..', import.meta.url))
let child: ChildProcess | undefined

function processTree(root: number): number[] {
  const children = spawnSync('pgrep', ['-P', String(root)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number)
  return [root, ...children.flatMap(processTree)]
}
let dataDir: string | undefined

afterEach(async () => {
  const running = child
  child = undefined
  if (running?.pid !== undefined && running.exitCode === null && running.signalCode === null) {
    const exited = new Promise((resolve) => running.once('exit', resolve))
    // pnpm, sh and tsx each spawn a child: signal the whole tree, leaves first.
    for (const pid of processTree(running.pid).reverse()) {
      try {
        process.kill(pid, 'SIGTERM')
      } catch {
        // already gone
      }
    }
    await exited
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

/** Runs the app's own `start` script, as `pnpm start` does, with embedded storage in a temp folder. */
function startApp(env: NodeJS.ProcessEnv): Promise<string> {
  const running = spawn('pnpm', ['run', '--silent', 'start'], {
    cwd: appRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child = running
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`app did not start: ${output}`)), 120_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    }
    running.stdout?.on('data', onData)
    running.stderr?.on('data', onData)
    running.on('exit', (code) => reject(new Error(`app exited with ${code}: ${output}`)))
  })
}

describe('pnpm start', () => {
  it('serves the health route on localhost with embedded storage and no database server', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'portcullis-app-'))
    const { DATABASE_URL: _ignored, ...env } = process.env
    const url = await startApp({ ...env, PORT: '0', PORTCULLIS_DATA_DIR: dataDir })
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const response = await fetch(`${url}/healthz`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'ok', checks: { database: 'ok' } })
  }, 150_000)
})
