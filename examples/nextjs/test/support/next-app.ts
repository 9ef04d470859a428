import { type ChildProcess, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

/** The example's folder: `next build` and `next start` run there, as `pnpm build` / `pnpm start` would. */
export const exampleRoot = fileURLToPath(new URL('../..', import.meta.url))
const nextBin = createRequire(import.meta.url).resolve('next/dist/bin/next')

function environment(overrides: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  return { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...overrides }
}

/** Runs `next build` (the same flags as the `build` script); rejects with its output if it fails or overruns. */
export function nextBuild(env: Readonly<Record<string, string>>, timeoutMs: number): Promise<string> {
  const child = spawn(process.execPath, [nextBin, 'build', '--webpack'], {
    cwd: exampleRoot,
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
 * `next start -H 127.0.0.1 -p <port>` (a free one unless given), resolved once `GET /` answers 200 (polled, bounded by
 * `readyTimeoutMs`). The server runs in its own process group, which `stop` signals as a whole.
 */
export async function nextStart(
  env: Readonly<Record<string, string>>,
  readyTimeoutMs: number,
  port?: number,
): Promise<RunningApp> {
  port ??= await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [nextBin, 'start', '-H', '127.0.0.1', '-p', String(port)], {
    cwd: exampleRoot,
    env: environment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
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
