import autocannon from 'autocannon'

export interface OpsCase {
  readonly name: string
  readonly fn: () => unknown
}

export interface HttpCase {
  readonly name: string
  readonly url: string
  readonly method?: 'GET' | 'POST'
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

export interface Measurement {
  readonly name: string
  /** Operations (or requests) per second, median of the rounds. */
  readonly perSecond: number
}

export interface ComparisonResult {
  readonly title: string
  readonly baseline: Measurement
  readonly candidate: Measurement
  /** Median of the per-round candidate / baseline ratios. */
  readonly ratio: number
  /** Minimum acceptable ratio, when one was given. */
  readonly budget?: number
  readonly passed: boolean
}

const results: ComparisonResult[] = []

/** Every comparison made in this process, in order. */
export function comparisons(): readonly ComparisonResult[] {
  return results
}

function record(
  title: string,
  baseline: Measurement,
  candidate: Measurement,
  ratio: number,
  budget?: number,
): ComparisonResult {
  const result: ComparisonResult = {
    title,
    baseline,
    candidate,
    ratio,
    passed: budget === undefined || ratio >= budget,
    ...(budget === undefined ? {} : { budget }),
  }
  results.push(result)
  const verdict =
    budget === undefined
      ? ''
      : result.passed
        ? `  PASS (budget >= ${budget}x)`
        : `  FAIL (budget >= ${budget}x)`
  console.log(
    `${title}: ${candidate.name} ${candidate.perSecond.toFixed(0)}/s vs ${baseline.name} ${baseline.perSecond.toFixed(0)}/s -> ${ratio.toFixed(2)}x${verdict}`,
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
): Promise<{ baseline: number; candidate: number; ratio: number }> {
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
  return { baseline: median(baselines), candidate: median(candidates), ratio: median(ratios) }
}

/**
 * In-process comparison: warms both up, then runs paired rounds (alternating which side goes first)
 * and reports the median of the per-round ratios, which is robust to drift and to one noisy round.
 */
export async function compareOps(options: {
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
    options.budget,
  )
}

async function requestsPerSecond(
  target: HttpCase,
  durationSeconds: number,
  connections: number,
): Promise<number> {
  const result = await autocannon({
    url: target.url,
    method: target.method ?? 'GET',
    headers: { ...target.headers },
    ...(target.body === undefined ? {} : { body: target.body }),
    connections,
    duration: durationSeconds,
    // The load generator runs in its own thread, so the server's event loop does only server work and
    // the ratio compares server cost, not server cost diluted by the client's.
    workers: 1,
  })
  const failures = result.errors + result.timeouts + result.non2xx
  if (failures > 0) {
    throw new Error(
      `${target.name}: ${failures} failed requests (errors, timeouts or non-2xx) out of ${result.requests.total}`,
    )
  }
  return result.requests.average
}

/**
 * Loopback HTTP comparison with autocannon: a short warm-up, then paired rounds as in `compareOps`. Any error or
 * non-2xx answer aborts the comparison, so a fast failure can never pass for a fast success.
 */
export async function compareHttp(options: {
  readonly title: string
  readonly baseline: HttpCase
  readonly candidate: HttpCase
  readonly budget?: number
  readonly durationSeconds?: number
  readonly connections?: number
  readonly rounds?: number
}): Promise<ComparisonResult> {
  for (const target of [options.baseline, options.candidate]) {
    if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(target.url)) {
      throw new Error(`${target.name}: benchmarks target loopback addresses only`)
    }
  }
  const durationSeconds = options.durationSeconds ?? 2
  const connections = options.connections ?? 16
  await requestsPerSecond(options.baseline, 1, connections)
  await requestsPerSecond(options.candidate, 1, connections)
  const measured = await pairedRounds(
    options.rounds ?? 5,
    () => requestsPerSecond(options.baseline, durationSeconds, connections),
    () => requestsPerSecond(options.candidate, durationSeconds, connections),
  )
  return record(
    options.title,
    { name: options.baseline.name, perSecond: measured.baseline },
    { name: options.candidate.name, perSecond: measured.candidate },
    measured.ratio,
    options.budget,
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
