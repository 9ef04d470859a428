import { type ChildProcess, spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The example's folder in the repository (what the tests copy into a project of its own). */
export const exampleRoot = fileURLToPath(new URL('../..', import.meta.url))

/** Turbopack is the default of `next build`; `--webpack` selects webpack. */
export type Bundler = 'turbopack' | 'webpack'

/** The `next` command of the project in `directory` (its own install). */
function nextBin(directory: string): string {
  return join(directory, 'node_modules', 'next', 'dist', 'bin', 'next')
}

function environment(overrides: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  return { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...overrides }
}

/** What the last build of a folder was made with (its sources do not change during a test run). */
const BUILT_WITH = join('.next', 'portcullis-built-with.json')

/**
 * Runs `next build` in `directory` with `bundler`; rejects with its output if it fails or overruns. A
 * folder already built with the same bundler and environment is not built again (test files share the
 * run's install, test/support/packed-setup.ts).
 */
export async function nextBuild(
  directory: string,
  bundler: Bundler,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<string> {
  const key = JSON.stringify({ bundler, env })
  const previous = await readFile(join(directory, BUILT_WITH), 'utf8').catch(() => undefined)
  if (previous === key) return 'built earlier in this run'
  const output = await runNextBuild(directory, bundler, env, timeoutMs)
  await writeFile(join(directory, BUILT_WITH), key)
  return output
}

function runNextBuild(
  directory: string,
  bundler: Bundler,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<string> {
  const flags = bundler === 'webpack' ? ['--webpack'] : []
  const child = spawn(process.execPath, [nextBin(directory), 'build', ...flags], {
    cwd: directory,
    env: environment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  return new Promise((resolve, reject) => {
    let output = ''
    const collect = (chunk: Buffer) => {
      output += chunk.toString()
    }
    child.stdout?.on('data', collect)
    child.stderr?.on('data', collect)
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL')
      reject(new Error(`next build did not finish within ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve(output)
      else reject(new Error(`next build exited with ${code ?? signal}:\n${output}`))
    })
  })
}

/** A free loopback port: bound by the system, then released for the server to take. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port)
        else reject(new Error('no port'))
      })
    })
  })
}

export interface RunningApp {
  readonly url: string
  /** Everything the server printed so far (for failure messages). */
  output(): string
  /** Stops the server and waits for it to exit; safe to call more than once. */
  stop(): Promise<void>
}

/**
 * In `directory`, `next start -H 127.0.0.1 -p <port>` (a free one unless given), resolved once `GET /` answers 200 (polled, bounded by
 * `readyTimeoutMs`). The server runs in its own process group, which `stop` signals as a whole.
 */
export async function nextStart(
  directory: string,
  env: Readonly<Record<string, string>>,
  readyTimeoutMs: number,
  port?: number,
): Promise<RunningApp> {
  port ??= await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(
    process.execPath,
    [nextBin(directory), 'start', '-H', '127.0.0.1', '-p', String(port)],
    {
      cwd: directory,
      env: environment(env),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  )
  let output = ''
  const collect = (chunk: Buffer) => {
    output += chunk.toString()
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const app: RunningApp = {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      killGroup(child, 'SIGTERM')
      const forced = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000)
      await exited
      clearTimeout(forced)
    },
  }
  try {
    await waitUntilReady(url, child, readyTimeoutMs)
  } catch (error) {
    await app.stop()
    throw new Error(`${(error as Error).message}\n${output}`)
  }
  return app
}

async function waitUntilReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`next start exited with ${child.exitCode ?? child.signalCode}`)
    }
    try {
      const response = await fetch(`${url}/`, { signal: AbortSignal.timeout(2_000) })
      await response.arrayBuffer()
      if (response.status === 200) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`next start was not ready within ${timeoutMs} ms`)
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // already gone
  }
}
