import { execFile } from 'node:child_process'

export interface CommandResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export interface CommandOptions {
  readonly cwd: string
  readonly env?: NodeJS.ProcessEnv
  /** Killed (SIGKILL) after this long; the result then has a non-zero code. */
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

/** Runs `command` without a shell; resolves with its exit code and output (never rejects on exit codes). */
export function run(
  command: string,
  args: readonly string[],
  options: CommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? cleanEnvironment(),
        timeout: options.timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number' && !error.killed) {
          reject(error)
          return
        }
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 137
        resolve({ code, stdout, stderr })
      },
    )
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
