import { spawn } from 'node:child_process'

export interface CommandResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export interface CommandOptions {
  readonly cwd: string
  readonly env?: NodeJS.ProcessEnv
  /** Killed (SIGKILL, with everything it started) after this long; the result then has a non-zero code. */
  readonly timeoutMs: number
}

/**
 * The environment of a command run outside the workspace: the variables pnpm and npm set for the script
 * that runs this test (`npm_config_*`, `npm_package_*`, `npm_lifecycle_*`, `INIT_CWD`, ...) are removed so
 * the workspace's settings never leak into it. A user's own `NPM_CONFIG_*` (upper case) stay.
 */
export function cleanEnvironment(
  extra: Readonly<Record<string, string | undefined>> = {},
): NodeJS.ProcessEnv {
  // A plain record: an application's types (Next.js's) may make some variables required in ProcessEnv.
  const env: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_|PNPM_|INIT_CWD$)/.test(name)) env[name] = value
  }
  return { ...env, ...extra } as NodeJS.ProcessEnv
}

/** Output beyond this is not collected: the command is killed. */
const MAX_OUTPUT = 16 * 1024 * 1024

/** SIGKILL to the process group of `pid` (a command started `detached` leads its own group). */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // already gone
  }
}

/** The groups of the commands still running, killed if this process exits before they end. */
const running = new Set<number>()
let exitHandlerInstalled = false

function track(pid: number | undefined): void {
  if (pid === undefined) return
  running.add(pid)
  if (exitHandlerInstalled) return
  exitHandlerInstalled = true
  process.once('exit', () => {
    for (const each of running) killGroup(each)
  })
}

/**
 * Runs `command` without a shell; resolves with its exit code and output (never rejects on exit codes).
 * The command and everything it starts (pnpm starts turbo, turbo its builds) form one process group,
 * killed as a whole at the timeout and when this process exits first: nothing it started outlives it.
 */
export function run(
  command: string,
  args: readonly string[],
  options: CommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? cleanEnvironment(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const stdout: Buffer[] = []
    const stderr: Buffer[] = []
    let size = 0
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_OUTPUT) killGroup(child.pid)
      else into.push(chunk)
    }
    child.stdout.on('data', collect(stdout))
    child.stderr.on('data', collect(stderr))
    track(child.pid)
    const timer = setTimeout(() => killGroup(child.pid), options.timeoutMs)
    const settle = () => {
      clearTimeout(timer)
      if (child.pid !== undefined) running.delete(child.pid)
    }
    // not started at all (ENOENT, ...)
    child.once('error', (error) => {
      settle()
      reject(error)
    })
    // ended by a signal (the timeout's, or output past MAX_OUTPUT): a non-zero code
    child.once('close', (code) => {
      settle()
      resolve({
        code: code ?? 137,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      })
    })
  })
}

/** Like `run`, but a non-zero exit is an error carrying the command's output. */
export async function runOrThrow(
  command: string,
  args: readonly string[],
  options: CommandOptions,
): Promise<CommandResult> {
  const result = await run(command, args, options)
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.code}\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`,
    )
  }
  return result
}
