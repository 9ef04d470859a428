// `pnpm test`: runs the command it is given (turbo) with one real PostgreSQL server for the whole run,
// then prints the ten slowest test files. Every vitest process of the run creates its databases on that
// one server (see global-setup.ts) instead of starting a server of its own.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { constants, tmpdir } from 'node:os'
import { join } from 'node:path'
import { dockerEngineAnswers } from '../docker.js'
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../embedded.js'
import { EMBEDDED_SERVER_VARIABLE } from '../global-setup.js'
import { DURATIONS_VARIABLE, readDurations, slowestFiles } from './durations.js'
import { latestRunSummary, slowestTasks } from './task-times.js'

const REPOSITORY_ROOT = new URL('../../../../', import.meta.url).pathname

/**
 * Up to five turbo tasks at a time, each with up to two vitest workers, each with its pools: room for
 * all of them on the one server.
 */
const MAX_CONNECTIONS = 1_000

/**
 * A folder for the whole run, removed when it ends: what test tasks make once and share (the pack test
 * and the Next.js example install the same tarballs, `tooling/packaging/src/packed-workspace.ts`).
 */
const RUN_DIRECTORY_VARIABLE = 'PORTCULLIS_TEST_RUN_DIR'

/** The run's server when this run should start one: not with `DATABASE_URL`, a shared one, or Docker. */
async function runServer(): Promise<EmbeddedPostgres | undefined> {
  if (process.env.DATABASE_URL || process.env[EMBEDDED_SERVER_VARIABLE]) return undefined
  if (await dockerEngineAnswers()) return undefined
  const started = Date.now()
  const server = await startEmbeddedPostgres({ maxConnections: MAX_CONNECTIONS })
  console.log(`test run: one embedded PostgreSQL for every package (started in ${Date.now() - started} ms)`)
  return server
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(command, args, { cwd: REPOSITORY_ROOT, env, stdio: 'inherit' })
  // An interrupt reaches the whole terminal group; the run waits for its command to end, then cleans up.
  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  const ignore = () => {}
  process.on('SIGINT', ignore)
  process.on('SIGTERM', forward)
  process.on('SIGHUP', forward)
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`test run: ${command} could not start: ${error.message}`)
      resolve(127)
    })
    child.on('exit', (code, signal) => {
      process.off('SIGINT', ignore)
      process.off('SIGTERM', forward)
      process.off('SIGHUP', forward)
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0))
    })
  })
}

async function main(): Promise<number> {
  const [command, ...args] = process.argv.slice(2)
  if (command === undefined) {
    console.error('usage: main.ts <command> [arguments…]')
    return 2
  }
  const durations = process.env[DURATIONS_VARIABLE] || join(REPOSITORY_ROOT, '.turbo', 'test-durations')
  await rm(durations, { recursive: true, force: true })
  const runDirectory = await mkdtemp(join(tmpdir(), 'portcullis-test-run-'))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    [DURATIONS_VARIABLE]: durations,
    [RUN_DIRECTORY_VARIABLE]: runDirectory,
  }
  const startedAt = Date.now()
  let status: number
  try {
    const server = await runServer()
    if (server) env[EMBEDDED_SERVER_VARIABLE] = server.connectionString
    try {
      status = await run(command, args, env)
    } finally {
      await server?.stop()
    }
  } finally {
    await rm(runDirectory, { recursive: true, force: true })
  }
  // With --summarize, turbo's own record of the run (typecheck and docs tasks are not test files): the
  // newest summary written since the start, which is this run's unless another ran beside it.
  const tasks = slowestTasks(await latestRunSummary(join(REPOSITORY_ROOT, '.turbo', 'runs'), startedAt))
  if (tasks.length > 0) console.log(`\n${tasks.join('\n')}`)
  const lines = slowestFiles(await readDurations(durations))
  if (lines.length > 0) console.log(`\n${lines.join('\n')}`)
  return status
}

process.exitCode = await main()
