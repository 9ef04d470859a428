import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'

/** One task of a turbo run summary (`turbo run --summarize`), the fields read here. */
interface SummaryTask {
  readonly taskId: string
  readonly cache?: { readonly status?: string }
  readonly execution?: {
    readonly startTime: number
    readonly endTime: number
    readonly exitCode?: number | null
  }
}

/** The summary turbo wrote into `runsFolder` since `sinceMs`, when there is one. */
export async function latestRunSummary(runsFolder: string, sinceMs: number): Promise<unknown> {
  const names = await readdir(runsFolder).catch(() => [] as string[])
  let latest: { path: string; mtimeMs: number } | undefined
  for (const name of names.filter((each) => each.endsWith('.json'))) {
    const path = join(runsFolder, name)
    const { mtimeMs } = await stat(path)
    if (mtimeMs >= sinceMs && (latest === undefined || mtimeMs > latest.mtimeMs)) latest = { path, mtimeMs }
  }
  if (latest === undefined) return undefined
  try {
    return JSON.parse(await readFile(latest.path, 'utf8')) as unknown
  } catch {
    return undefined
  }
}

/**
 * The `count` longest tasks of a turbo run summary as lines for a terminal (cache hits left out: they
 * took no time); empty when the summary has none.
 */
export function slowestTasks(summary: unknown, count = 10): string[] {
  const tasks = ((summary as { tasks?: SummaryTask[] } | undefined)?.tasks ?? []).filter(
    (task) => task.execution !== undefined && task.cache?.status !== 'HIT',
  )
  if (tasks.length === 0) return []
  const timed = tasks
    .map((task) => ({
      id: task.taskId,
      ms: (task.execution?.endTime ?? 0) - (task.execution?.startTime ?? 0),
      failed: (task.execution?.exitCode ?? 0) !== 0,
    }))
    .sort((a, b) => b.ms - a.ms)
  const lines = [`The ${Math.min(count, timed.length)} longest tasks of ${timed.length} run:`]
  for (const task of timed.slice(0, count)) {
    lines.push(
      `${`${(task.ms / 1000).toFixed(1)} s`.padStart(8)}  ${task.id}${task.failed ? '  (failed)' : ''}`,
    )
  }
  return lines
}
