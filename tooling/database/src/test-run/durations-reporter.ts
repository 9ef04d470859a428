import { relative } from 'node:path'
import type { Reporter, TestModule } from 'vitest/node'
import { DURATIONS_VARIABLE, type FileDuration, writeDurations } from './durations.js'

/** Where the repository root is, from this file (tooling/database/src/test-run). */
const REPOSITORY_ROOT = new URL('../../../../', import.meta.url).pathname

function durationOf(module: TestModule): FileDuration {
  const diagnostic = module.diagnostic()
  const totalMs =
    diagnostic.environmentSetupDuration +
    diagnostic.prepareDuration +
    diagnostic.collectDuration +
    diagnostic.setupDuration +
    diagnostic.duration
  return {
    file: relative(REPOSITORY_ROOT, module.moduleId),
    totalMs: Math.round(totalMs),
    testsMs: Math.round(diagnostic.duration),
    state: module.state(),
  }
}

/**
 * A vitest reporter that records how long each test file took, for the summary `pnpm test` prints at
 * its end (the ten slowest files of the whole run). It writes only when the run asks for it
 * (`PORTCULLIS_TEST_DURATIONS` names a folder) and never fails a run.
 */
export default class DurationsReporter implements Reporter {
  async onTestRunEnd(modules: ReadonlyArray<TestModule>): Promise<void> {
    const folder = process.env[DURATIONS_VARIABLE]
    if (!folder || modules.length === 0) return
    const project = modules[0]?.project.name || relative(REPOSITORY_ROOT, process.cwd()) || 'root'
    try {
      await writeDurations(folder, project, modules.map(durationOf))
    } catch (error) {
      console.warn(`test durations were not recorded: ${(error as Error).message}`)
    }
  }
}
