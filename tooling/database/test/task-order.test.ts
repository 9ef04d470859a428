import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const ROOT = new URL('../../../', import.meta.url).pathname
const turbo = new URL('../../../node_modules/.bin/turbo', import.meta.url).pathname
const GATE = '//#after-slow-suites'

/** The suites that take longest on a clean clone: they and what they need start before the rest. */
const SLOW_FIRST = [
  '@portcullis/reference#test',
  '@portcullis/example-nextjs#test',
  '@portcullis/postgres#test',
  '@portcullis/packaging#test',
]

/** The root `test` script's `--concurrency=N`. */
function testScriptConcurrency(): number {
  const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: { test: string } }
  const value = /--concurrency[= ](\d+)/.exec(manifest.scripts.test)?.[1]
  if (value === undefined) throw new Error('the test script sets no --concurrency')
  return Number(value)
}

/** The tasks the root `test` script hands to `turbo run` (the words between `turbo run` and the first flag). */
function testScriptTasks(): string[] {
  const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: { test: string } }
  const words = manifest.scripts.test.split(/\s+/)
  const start = words.indexOf('run', words.indexOf('turbo')) + 1
  const end = words.findIndex((word, index) => index >= start && word.startsWith('--'))
  return words.slice(start, end)
}

interface DryTask {
  readonly taskId: string
  readonly task: string
  readonly dependencies: readonly string[]
}

async function taskGraph(): Promise<DryTask[]> {
  const { stdout } = await promisify(execFile)(turbo, ['run', ...testScriptTasks(), '--dry=json'], {
    cwd: ROOT,
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
    maxBuffer: 64 * 1024 * 1024,
  })
  return (JSON.parse(stdout) as { tasks: DryTask[] }).tasks
}

describe('the task graph of pnpm test', { timeout: 120_000 }, () => {
  it('queues every lint, typecheck and test task behind the slow suites, which wait for nothing but builds', async () => {
    const tasks = await taskGraph()
    const byId = new Map(tasks.map((task) => [task.taskId, task]))
    const waitsForGate = (id: string, seen = new Set<string>()): boolean => {
      if (seen.has(id)) return false
      seen.add(id)
      const task = byId.get(id)
      return task?.dependencies.some((each) => each === GATE || waitsForGate(each, seen)) ?? false
    }
    for (const id of SLOW_FIRST) {
      expect(byId.has(id), `${id} is in the run`).toBe(true)
      expect(waitsForGate(id), `${id} starts in the first wave`).toBe(false)
      // What it waits for is builds only.
      const dependencies = byId.get(id)?.dependencies ?? []
      expect(dependencies.filter((each) => !each.endsWith('#build'))).toEqual([])
    }
    const rest = tasks.filter(
      (task) =>
        ['lint', 'typecheck', 'typecheck:workspace', 'test', 'deps:check', 'docs:api:check'].includes(
          task.task,
        ) && !SLOW_FIRST.includes(task.taskId),
    )
    expect(rest.length).toBeGreaterThan(30)
    // The whole workspace is typechecked by one program (tsconfig.typecheck.json), in the same queue.
    expect(rest.map((task) => task.taskId)).toContain('//#typecheck:workspace')
    expect(rest.filter((task) => !task.dependencies.includes(GATE)).map((task) => task.taskId)).toEqual([])
    expect(rest.map((task) => task.taskId)).toContain('//#docs:api:check')
    // The gate itself waits for nothing: it runs once its turn in the queue comes.
    expect(byId.get(GATE)?.dependencies).toEqual([])
  })

  it('starts the slow suites and the gate at once: the only tasks ready at the start, within the concurrency', async () => {
    const tasks = await taskGraph()
    const ready = tasks.filter((task) => task.dependencies.length === 0).map((task) => task.taskId)
    // Turbo picks among ready tasks in an order that changes from run to run: none may wait for a slot.
    expect(ready.sort()).toEqual([...SLOW_FIRST, GATE].sort())
    expect(ready.length).toBeLessThanOrEqual(testScriptConcurrency())
  })
})
