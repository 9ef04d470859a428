import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * The folder a test run's vitest processes write their per-file durations to. Set by the run wrapper
 * (`pnpm test`); unset, the reporter writes nothing.
 */
export const DURATIONS_VARIABLE = 'PORTCULLIS_TEST_DURATIONS'

/** One test file's time in one vitest run. */
export interface FileDuration {
  /** The file's path relative to the repository root. */
  readonly file: string
  /** Environment, harness, import, setup files, and every test and hook of the file, in ms. */
  readonly totalMs: number
  /** Tests and hooks alone, in ms. */
  readonly testsMs: number
  readonly state: 'passed' | 'failed' | 'skipped' | 'pending' | 'queued'
}

/** Writes one vitest run's file durations into `folder` (one JSON file per run). */
export async function writeDurations(
  folder: string,
  project: string,
  durations: readonly FileDuration[],
): Promise<void> {
  await mkdir(folder, { recursive: true })
  const name = `${project.replace(/[^a-z0-9._-]+/gi, '_')}-${process.pid}-${Date.now()}.json`
  await writeFile(join(folder, name), `${JSON.stringify(durations)}\n`)
}

/**
 * Every file duration written into `folder`, slowest first. A file reported twice (a vitest run inside
 * a test) keeps its longest time.
 */
export async function readDurations(folder: string): Promise<FileDuration[]> {
  const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[]
    throw error
  })
  const byFile = new Map<string, FileDuration>()
  for (const name of names.filter((each) => each.endsWith('.json'))) {
    const text = await readFile(join(folder, name), 'utf8')
    let entries: FileDuration[]
    try {
      entries = JSON.parse(text) as FileDuration[]
    } catch {
      continue // a run interrupted while writing
    }
    for (const entry of entries) {
      const known = byFile.get(entry.file)
      if (known === undefined || known.totalMs < entry.totalMs) byFile.set(entry.file, entry)
    }
  }
  return [...byFile.values()].sort((a, b) => b.totalMs - a.totalMs)
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`.padStart(8)
}

/** The `count` slowest files as lines for a terminal; empty when nothing was recorded. */
export function slowestFiles(durations: readonly FileDuration[], count = 10): string[] {
  if (durations.length === 0) return []
  const lines = [`The ${Math.min(count, durations.length)} slowest test files of ${durations.length}:`]
  for (const entry of durations.slice(0, count)) {
    const state = entry.state === 'passed' ? '' : `  (${entry.state})`
    lines.push(`${seconds(entry.totalMs)}  ${entry.file}${state}  [tests ${seconds(entry.testsMs).trim()}]`)
  }
  return lines
}
