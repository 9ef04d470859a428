// What each part of a request costs, in one run: the same request handled in-process (no socket) by
// handlers that each add one part (the bare handler, the framework, Portcullis on an anonymous route, a
// mechanism, ...). Batches of every handler alternate round by round; each handler's figure is the median
// CPU time per request, and its ratio to the first handler (the baseline of the same run) is given beside
// it. A report table, never a budget: the budgets are the loopback comparisons.
import { reportTable } from './compare.js'

export interface CostPart {
  readonly name: string
  /** Handles one request; a rejected promise or a thrown error fails the measurement. */
  readonly run: () => unknown
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

async function batch(part: CostPart, size: number): Promise<number> {
  const start = process.cpuUsage()
  for (let index = 0; index < size; index++) {
    const value = part.run()
    if (value instanceof Promise) await value
  }
  const used = process.cpuUsage(start)
  return (used.user + used.system) / size
}

/**
 * Measures every part in alternating batches (`rounds`, after `warmupRounds` not counted) and reports a
 * table: each part's median microseconds of CPU per request, what it adds over the part before it, and its
 * ratio to the first part's rate.
 */
export async function reportPartCosts(
  title: string,
  parts: readonly CostPart[],
  options: { readonly rounds?: number; readonly warmupRounds?: number; readonly batchSize?: number } = {},
): Promise<readonly number[]> {
  const rounds = options.rounds ?? 15
  const warmupRounds = options.warmupRounds ?? 3
  const size = options.batchSize ?? 1000
  const costs = parts.map(() => [] as number[])
  for (let round = 0; round < warmupRounds + rounds; round++) {
    const order = parts.map((_, index) => index)
    if (round % 2 === 1) order.reverse()
    for (const index of order) {
      const cost = await batch(parts[index] as CostPart, size)
      if (round >= warmupRounds) costs[index]?.push(cost)
    }
  }
  const medians = costs.map(median)
  const first = medians[0] as number
  reportTable(
    title,
    [
      'Handler (in-process, one request)',
      'CPU µs per request',
      'Added over the row above',
      'Rate vs the first row',
    ],
    parts.map((part, index) => [
      part.name,
      (medians[index] as number).toFixed(1),
      index === 0 ? '-' : ((medians[index] as number) - (medians[index - 1] as number)).toFixed(1),
      `${(first / (medians[index] as number)).toFixed(2)}x`,
    ]),
  )
  return medians
}
