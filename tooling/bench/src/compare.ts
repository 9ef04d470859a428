import { appendFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { basename } from 'node:path'
import { type HttpCase, interleavedLoad, loadTarget } from './http-load.js'

export interface OpsCase {
  readonly name: string
  readonly fn: () => unknown
}

export interface Measurement {
  readonly name: string
  /** Operations (or requests) per second, median of the rounds. */
  readonly perSecond: number
}

export interface ComparisonResult {
  /** Stable id of a budgeted comparison (see budgets.ts), so the performance report can find it. */
  readonly id?: string
  readonly title: string
  readonly baseline: Measurement
  readonly candidate: Measurement
  /** Median of the per-round candidate / baseline ratios. */
  readonly ratio: number
  /** Every round's ratio, in the order measured: their spread shows how noisy the machine was. */
  readonly rounds: readonly number[]
  /** Minimum acceptable ratio, when one was given. */
  readonly budget?: number
  readonly passed: boolean
}

const results: ComparisonResult[] = []

/** Every comparison made in this process, in order. */
export function comparisons(): readonly ComparisonResult[] {
  return results
}

/** The bench file this process runs (`tsx bench/x.bench.ts`), as the report keys its entries. */
const benchFile = process.argv[1] === undefined ? undefined : basename(process.argv[1])
const measuredAt = new Date().toISOString().slice(0, 16).replace('T', ' ')

/**
 * Appends one JSON line to the file named by `PORTCULLIS_BENCH_RESULTS`, when set (`pnpm bench` sets it):
 * the entry, its package and bench file (a later partial run replaces the entries of the files it ran),
 * when it was measured, and the machine's 1-minute load average then.
 */
function persist(entry: object): void {
  const file = process.env.PORTCULLIS_BENCH_RESULTS
  if (!file) return
  const source = process.env.npm_package_name
  // how busy the machine was when the figure was taken: ratios measured beside other work spread wide
  const loadAverage = Math.round((loadavg()[0] ?? 0) * 10) / 10
  appendFileSync(file, `${JSON.stringify({ ...entry, source, bench: benchFile, measuredAt, loadAverage })}\n`)
}

/** Prints a small markdown table (a report without a ratio, e.g. how cost grows) and keeps it for the report. */
export function reportTable(
  title: string,
  header: readonly string[],
  rows: readonly (readonly string[])[],
): void {
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ]
  console.log(`\n${title}\n${lines.join('\n')}\n`)
  persist({ kind: 'table', title, header, rows })
}

function record(
  title: string,
  baseline: Measurement,
  candidate: Measurement,
  ratio: number,
  rounds: readonly number[],
  budget?: number,
  id?: string,
): ComparisonResult {
  const result: ComparisonResult = {
    ...(id === undefined ? {} : { id }),
    title,
    baseline,
    candidate,
    ratio,
    rounds,
    passed: budget === undefined || ratio >= budget,
    ...(budget === undefined ? {} : { budget }),
  }
  results.push(result)
  persist({ kind: 'comparison', ...result })
  const verdict =
    budget === undefined
      ? ''
      : result.passed
        ? `  PASS (budget >= ${budget}x)`
        : `  FAIL (budget >= ${budget}x)`
  const spread = `rounds ${Math.min(...rounds).toFixed(2)}-${Math.max(...rounds).toFixed(2)}`
  console.log(
    `${title}: ${candidate.name} ${candidate.perSecond.toFixed(0)}/s vs ${baseline.name} ${baseline.perSecond.toFixed(0)}/s -> ${ratio.toFixed(2)}x (${spread})${verdict}`,
  )
  return result
}

async function opsPerSecond(fn: () => unknown, durationMs: number): Promise<number> {
  // Batches amortize the clock read; async functions are awaited one at a time.
  let operations = 0
  const start = performance.now()
  let now = start
  while (now - start < durationMs) {
    for (let i = 0; i < 64; i++) {
      const value = fn()
      if (value instanceof Promise) await value
    }
    operations += 64
    now = performance.now()
  }
  return (operations * 1000) / (now - start)
}

/** Median of the per-round ratios; rounds alternate which side runs first, so drift hits both. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

async function pairedRounds(
  rounds: number,
  measureBaseline: () => Promise<number>,
  measureCandidate: () => Promise<number>,
): Promise<{ baseline: number; candidate: number; ratio: number; rounds: readonly number[] }> {
  const baselines: number[] = []
  const candidates: number[] = []
  const ratios: number[] = []
  for (let round = 0; round < rounds; round++) {
    let baseline: number
    let candidate: number
    if (round % 2 === 0) {
      baseline = await measureBaseline()
      candidate = await measureCandidate()
    } else {
      candidate = await measureCandidate()
      baseline = await measureBaseline()
    }
    baselines.push(baseline)
    candidates.push(candidate)
    ratios.push(candidate / baseline)
  }
  return {
    baseline: median(baselines),
    candidate: median(candidates),
    ratio: median(ratios),
    rounds: ratios,
  }
}

/**
 * In-process comparison: warms both up, then runs paired rounds (alternating which side goes first)
 * and reports the median of the per-round ratios, which is robust to drift and to one noisy round.
 */
export async function compareOps(options: {
  readonly id?: string
  readonly title: string
  readonly baseline: OpsCase
  readonly candidate: OpsCase
  readonly budget?: number
  readonly durationMs?: number
  readonly rounds?: number
}): Promise<ComparisonResult> {
  const durationMs = options.durationMs ?? 1000
  await opsPerSecond(options.baseline.fn, 200)
  await opsPerSecond(options.candidate.fn, 200)
  const measured = await pairedRounds(
    options.rounds ?? 5,
    () => opsPerSecond(options.baseline.fn, durationMs),
    () => opsPerSecond(options.candidate.fn, durationMs),
  )
  return record(
    options.title,
    { name: options.baseline.name, perSecond: measured.baseline },
    { name: options.candidate.name, perSecond: measured.candidate },
    measured.ratio,
    measured.rounds,
    options.budget,
    options.id,
  )
}

/**
 * Loopback HTTP comparison: a load generator in its own thread drives baseline and candidate in alternating
 * time slices (`sliceMs`, default 200) over keep-alive connections, so both sides run under the same machine
 * conditions; each round gives `durationSeconds` (default 2) to each side, and the result is the median of
 * the per-round ratios (`rounds`: default 9 with a budget, 5 without). Any non-2xx answer or broken
 * connection aborts the comparison, so a fast failure can never pass for a fast success.
 */
export async function compareHttp(options: {
  readonly id?: string
  readonly title: string
  readonly baseline: HttpCase
  readonly candidate: HttpCase
  readonly budget?: number
  readonly durationSeconds?: number
  readonly connections?: number
  readonly rounds?: number
  readonly sliceMs?: number
  /** Per side, before measuring. Default 1. */
  readonly warmupSeconds?: number
}): Promise<ComparisonResult> {
  const targets = [loadTarget(options.baseline), loadTarget(options.candidate)] as const
  const result = await interleavedLoad({
    targets,
    connections: options.connections ?? 16,
    sliceMs: options.sliceMs ?? 200,
    roundMs: (options.durationSeconds ?? 2) * 1000,
    // a budget is a verdict: more rounds make its median robust to a noisy stretch
    rounds: options.rounds ?? (options.budget === undefined ? 5 : 9),
    warmupMs: (options.warmupSeconds ?? 1) * 1000,
  })
  if (result.failure !== undefined) {
    throw new Error(`${options.title}: failed requests (${result.failure})`)
  }
  const rates = result.rounds.map(({ counts, ms }) => ({
    baseline: (counts[0] * 1000) / ms[0],
    candidate: (counts[1] * 1000) / ms[1],
  }))
  const ratios = rates.map((rate) => rate.candidate / rate.baseline)
  return record(
    options.title,
    { name: options.baseline.name, perSecond: median(rates.map((rate) => rate.baseline)) },
    { name: options.candidate.name, perSecond: median(rates.map((rate) => rate.candidate)) },
    median(ratios),
    ratios,
    options.budget,
    options.id,
  )
}

/**
 * Records a comparison measured by the caller's own method (e.g. whole alternating phases that cannot be
 * interleaved at 200 ms): printed and kept for the report exactly like `compareOps`/`compareHttp` results.
 */
export function recordComparison(options: {
  readonly id?: string
  readonly title: string
  readonly baseline: Measurement
  readonly candidate: Measurement
  readonly ratio: number
  readonly rounds: readonly number[]
  readonly budget?: number
}): ComparisonResult {
  return record(
    options.title,
    options.baseline,
    options.candidate,
    options.ratio,
    options.rounds,
    options.budget,
    options.id,
  )
}

/** Sets a failing exit code when any comparison with a budget missed it. Call at the end of a bench file. */
export function finish(): void {
  const failed = results.filter((result) => !result.passed)
  if (failed.length > 0) {
    console.error(`${failed.length} budget(s) missed: ${failed.map((result) => result.title).join(', ')}`)
    process.exitCode = 1
  }
}
