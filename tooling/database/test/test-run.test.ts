import { spawn } from 'node:child_process'
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { readDurations, slowestFiles } from '../src/test-run/durations.js'
import { latestRunSummary, slowestTasks } from '../src/test-run/task-times.js'

const bin = (name: string) =>
  new URL(
    name === 'vitest' ? '../../../node_modules/.bin/vitest' : `../node_modules/.bin/${name}`,
    import.meta.url,
  ).pathname
const durationsConfig = new URL('./fixtures/durations/vitest.config.ts', import.meta.url).pathname
const wrapper = new URL('../src/test-run/main.ts', import.meta.url).pathname
const queryServer = new URL('./fixtures/test-run/query-server.ts', import.meta.url).pathname

/** The environment of a child run: no database settings and no vitest worker state inherited. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra }
  for (const name of [
    'DATABASE_URL',
    'PORTCULLIS_TEST_POSTGRES_URL',
    'PORTCULLIS_TEST_DURATIONS',
    'VITEST',
    'VITEST_POOL_ID',
    'VITEST_WORKER_ID',
  ]) {
    if (!(name in extra)) delete env[name]
  }
  return env
}

function exitOf(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(file, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })))
}

let folder: string | undefined
afterEach(async () => {
  if (folder) await rm(folder, { recursive: true, force: true })
  folder = undefined
})

describe('the durations reporter', { timeout: 120_000 }, () => {
  it('records every file of a run when asked, and the summary lists the slowest first', async () => {
    folder = await mkdtemp(join(tmpdir(), 'portcullis-durations-'))
    const durations = join(folder, 'durations')
    const run = await exitOf(
      bin('vitest'),
      ['run', '--config', durationsConfig],
      childEnv({ PORTCULLIS_TEST_DURATIONS: durations }),
    )
    expect(run.code, run.output).toBe(0)
    const recorded = await readDurations(durations)
    expect(recorded.map((entry) => entry.file)).toEqual([
      'tooling/database/test/fixtures/durations/slow.fixture.ts',
      'tooling/database/test/fixtures/durations/quick.fixture.ts',
    ])
    const [slow, quick] = recorded
    expect(slow?.testsMs).toBeGreaterThanOrEqual(790)
    expect(slow?.totalMs).toBeGreaterThanOrEqual(slow?.testsMs ?? Number.POSITIVE_INFINITY)
    expect(quick?.testsMs).toBeLessThan(790)
    expect(recorded.every((entry) => entry.state === 'passed')).toBe(true)
    const lines = slowestFiles(recorded)
    expect(lines[0]).toBe('The 2 slowest test files of 2:')
    expect(lines[1]).toMatch(
      /^\s+\d+\.\d s {2}tooling\/database\/test\/fixtures\/durations\/slow\.fixture\.ts {2}\[tests /,
    )
  })

  it('writes nothing when the run does not ask (the variable unset or empty)', async () => {
    folder = await mkdtemp(join(tmpdir(), 'portcullis-durations-'))
    for (const env of [childEnv({}), childEnv({ PORTCULLIS_TEST_DURATIONS: '' })]) {
      const run = await exitOf(bin('vitest'), ['run', '--config', durationsConfig], env, folder)
      expect(run.code, run.output).toBe(0)
    }
    // Not even into the folder it ran in (where a relative, empty folder name would point).
    expect(await readdir(folder)).toEqual([])
  })
})

describe('the summary of recorded durations', () => {
  it('keeps the longest time of a file reported twice, marks files that did not pass, and skips a torn file', async () => {
    folder = await mkdtemp(join(tmpdir(), 'portcullis-durations-'))
    const entry = (file: string, totalMs: number, state = 'passed') => ({
      file,
      totalMs,
      testsMs: totalMs,
      state,
    })
    await writeFile(
      join(folder, 'a.json'),
      JSON.stringify([entry('a.test.ts', 1_000), entry('b.test.ts', 300)]),
    )
    await writeFile(
      join(folder, 'b.json'),
      JSON.stringify([entry('a.test.ts', 4_000), entry('c.test.ts', 2_000, 'failed')]),
    )
    await writeFile(join(folder, 'c.json'), '[{"file":"d.te')
    const recorded = await readDurations(folder)
    expect(recorded.map((each) => [each.file, each.totalMs])).toEqual([
      ['a.test.ts', 4_000],
      ['c.test.ts', 2_000],
      ['b.test.ts', 300],
    ])
    expect(slowestFiles(recorded, 2)).toEqual([
      'The 2 slowest test files of 3:',
      '   4.0 s  a.test.ts  [tests 4.0 s]',
      '   2.0 s  c.test.ts  (failed)  [tests 2.0 s]',
    ])
    expect(slowestFiles([])).toEqual([])
    await expect(readDurations(join(folder, 'missing'))).resolves.toEqual([])
  })
})

describe('the longest tasks of a turbo run summary', () => {
  it('lists executed tasks longest first, leaves cache hits out, marks failures, and reads only a summary written since the start', async () => {
    folder = await mkdtemp(join(tmpdir(), 'portcullis-runs-'))
    const task = (taskId: string, ms: number, status = 'MISS', exitCode = 0) => ({
      taskId,
      cache: { status },
      execution: { startTime: 1_000, endTime: 1_000 + ms, exitCode },
    })
    await writeFile(
      join(folder, 'run.json'),
      JSON.stringify({
        tasks: [
          task('a#lint', 2_000),
          task('b#test', 90_000, 'MISS', 1),
          task('c#typecheck', 40_000),
          task('d#build', 60_000, 'HIT'),
          { taskId: 'e#test' },
        ],
      }),
    )
    const summary = await latestRunSummary(folder, Date.now() - 60_000)
    expect(slowestTasks(summary, 2)).toEqual([
      'The 2 longest tasks of 3 run:',
      '  90.0 s  b#test  (failed)',
      '  40.0 s  c#typecheck',
    ])
    await expect(latestRunSummary(folder, Date.now() + 60_000)).resolves.toBeUndefined()
    expect(slowestTasks(undefined)).toEqual([])
  })
})

describe('the test-run wrapper', { timeout: 240_000 }, () => {
  it('gives its command one real server, stops it afterwards, and exits with the command’s status', async () => {
    folder = await mkdtemp(join(tmpdir(), 'portcullis-test-run-'))
    const run = await exitOf(
      bin('tsx'),
      [wrapper, bin('tsx'), queryServer, '3'],
      childEnv({ PORTCULLIS_TEST_DURATIONS: join(folder, 'durations') }),
    )
    expect(run.code, run.output).toBe(3)
    const said = /server (\{.*\})/.exec(run.output)?.[1]
    expect(said, run.output).toBeDefined()
    const { url, maxConnections } = JSON.parse(said ?? '{}') as { url: string; maxConnections: string }
    expect(maxConnections).toBe('1000')
    expect(new URL(url).hostname).toBe('127.0.0.1')
    // Stopped: nothing answers on its port any more.
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 })
    await expect(client.connect()).rejects.toThrow()
  })

  it('gives its command a folder of the run, a new one each run, and removes it when the command ends', async () => {
    folder = await mkdtemp(join(tmpdir(), 'portcullis-test-run-'))
    const runFolder = async () => {
      const run = await exitOf(
        bin('tsx'),
        [wrapper, bin('tsx'), queryServer, '1'],
        childEnv({
          DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
          PORTCULLIS_TEST_DURATIONS: join(folder ?? '', 'd'),
        }),
      )
      expect(run.code, run.output).toBe(1)
      const said = /run folder (\{.*\})/.exec(run.output)?.[1]
      expect(said, run.output).toBeDefined()
      return JSON.parse(said ?? '{}') as { path: string; folder: boolean }
    }
    const first = await runFolder()
    expect(first.folder).toBe(true)
    expect(first.path.startsWith(tmpdir())).toBe(true)
    await expect(stat(first.path)).rejects.toThrow(/ENOENT/)
    const second = await runFolder()
    expect(second.folder).toBe(true)
    expect(second.path).not.toBe(first.path)
    await expect(stat(second.path)).rejects.toThrow(/ENOENT/)
  })

  it('starts no server when DATABASE_URL names one', async () => {
    folder = await mkdtemp(join(tmpdir(), 'portcullis-test-run-'))
    const run = await exitOf(
      bin('tsx'),
      [wrapper, bin('tsx'), queryServer, '0'],
      childEnv({
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        PORTCULLIS_TEST_DURATIONS: join(folder, 'd'),
      }),
    )
    expect(run.code, run.output).toBe(0)
    expect(run.output).toContain('no server')
  })
})
