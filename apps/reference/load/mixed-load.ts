import { monitorEventLoopDelay } from 'node:perf_hooks'

/** One kind of client: how it calls the app and which principal every answer must name. */
export interface LoadProfile {
  readonly name: string
  /** Builds one request (GET by default); called before every request so credentials may rotate. */
  request(): {
    readonly url: string
    readonly headers?: Readonly<Record<string, string>>
    readonly method?: string
    readonly body?: string
  }
  /** The principal id the answer must carry (read with `principalOf`), or undefined for anonymous routes. */
  readonly principal?: string
}

export interface LoadOptions {
  readonly profiles: readonly LoadProfile[]
  /** Concurrent clients, spread over the profiles round-robin. */
  readonly clients: number
  readonly durationMs: number
  /** Reads the principal id from a 2xx body; default: `body.principal`. */
  readonly principalOf?: (body: unknown) => string | undefined
  /** Called every `sampleEveryMs` with the window's figures (for soak plots). */
  readonly onSample?: (sample: LoadSample) => void
  readonly sampleEveryMs?: number
}

export interface LoadSample {
  readonly atMs: number
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly heapUsedMiB: number
  readonly eventLoopDelayP99Ms: number
}

export interface LoadReport {
  readonly requests: number
  readonly byStatus: Readonly<Record<string, number>>
  /** Statuses per profile, to see which kind of client an unexpected status came from. */
  readonly byProfile: Readonly<Record<string, Readonly<Record<string, number>>>>
  /** The first non-2xx answer body of each profile (problem+json), to say why. */
  readonly firstFailures: Readonly<Record<string, string>>
  /** 2xx answers naming another principal than the client's: must be zero. */
  readonly wrongPrincipals: number
  /** Requests that failed at the transport (connection refused, reset). */
  readonly transportErrors: number
  /** 503 answers without a `Retry-After` of delta-seconds, per profile: must be zero. */
  readonly unavailableWithoutRetryAfter: Readonly<Record<string, number>>
  /**
   * What each profile's 503 answers said, counted: a problem's `code` (`authentication.unavailable`), a
   * health answer as `health <checks>` (`health {"database":"timeout"}`), anything else `unrecognized`.
   */
  readonly unavailableAnswers: Readonly<Record<string, Readonly<Record<string, number>>>>
  readonly p50Ms: number
  readonly p99Ms: number
  readonly requestsPerSecond: number
  readonly samples: readonly LoadSample[]
}

/** How a 503 body describes itself (see `LoadReport.unavailableAnswers`). */
function unavailableAnswerOf(text: string): string {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return 'unrecognized'
  }
  if (typeof body !== 'object' || body === null) return 'unrecognized'
  const { code, status, checks } = body as { code?: unknown; status?: unknown; checks?: unknown }
  if (typeof code === 'string') return code
  if (status === 'unavailable' && typeof checks === 'object' && checks !== null) {
    return `health ${JSON.stringify(checks)}`
  }
  return 'unrecognized'
}

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0
}

const defaultPrincipalOf = (body: unknown) =>
  typeof body === 'object' && body !== null && typeof (body as { principal?: unknown }).principal === 'string'
    ? (body as { principal: string }).principal
    : undefined

/**
 * Runs `clients` concurrent request loops against a running app for `durationMs` (bounded in count and
 * time, loopback only): every 2xx answer is checked for the client's principal. Latency is measured per
 * request; heap and event-loop delay are this process's.
 */
export async function runMixedLoad(options: LoadOptions): Promise<LoadReport> {
  const principalOf = options.principalOf ?? defaultPrincipalOf
  const byStatus: Record<string, number> = {}
  const byProfile: Record<string, Record<string, number>> = {}
  const firstFailures: Record<string, string> = {}
  const all: number[] = []
  let window: number[] = []
  let wrongPrincipals = 0
  let transportErrors = 0
  const unavailableWithoutRetryAfter: Record<string, number> = {}
  const unavailableAnswers: Record<string, Record<string, number>> = {}
  const samples: LoadSample[] = []
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  const started = performance.now()
  const deadline = started + options.durationMs
  let windowStart = started
  const sampler =
    options.sampleEveryMs === undefined
      ? undefined
      : setInterval(() => {
          const now = performance.now()
          const sorted = [...window].sort((a, b) => a - b)
          const sample: LoadSample = {
            atMs: Math.round(now - started),
            requestsPerSecond: (window.length * 1000) / (now - windowStart),
            p50Ms: percentile(sorted, 0.5),
            p99Ms: percentile(sorted, 0.99),
            heapUsedMiB: process.memoryUsage().heapUsed / 2 ** 20,
            eventLoopDelayP99Ms: delay.percentile(99) / 1e6,
          }
          delay.reset()
          window = []
          windowStart = now
          samples.push(sample)
          options.onSample?.(sample)
        }, options.sampleEveryMs)

  const loop = async (profile: LoadProfile) => {
    while (performance.now() < deadline) {
      const { url, headers, method, body } = profile.request()
      const begun = performance.now()
      try {
        const response = await fetch(url, {
          redirect: 'manual',
          ...(headers === undefined ? {} : { headers }),
          ...(method === undefined ? {} : { method }),
          ...(body === undefined ? {} : { body }),
        })
        const text = await response.text()
        const elapsed = performance.now() - begun
        all.push(elapsed)
        window.push(elapsed)
        byStatus[response.status] = (byStatus[response.status] ?? 0) + 1
        const counts = byProfile[profile.name] ?? {}
        byProfile[profile.name] = counts
        counts[response.status] = (counts[response.status] ?? 0) + 1
        if (response.status === 503 && !/^\d+$/.test(response.headers.get('retry-after') ?? '')) {
          unavailableWithoutRetryAfter[profile.name] = (unavailableWithoutRetryAfter[profile.name] ?? 0) + 1
        }
        if (response.status === 503) {
          const answers = unavailableAnswers[profile.name] ?? {}
          unavailableAnswers[profile.name] = answers
          const answer = unavailableAnswerOf(text)
          answers[answer] = (answers[answer] ?? 0) + 1
        }
        if (!response.ok && firstFailures[profile.name] === undefined) {
          firstFailures[profile.name] = `${response.status} ${text.slice(0, 300)}`
        }
        if (response.ok && profile.principal !== undefined) {
          let body: unknown
          try {
            body = JSON.parse(text)
          } catch {
            body = undefined
          }
          if (principalOf(body) !== profile.principal) wrongPrincipals += 1
        }
      } catch {
        transportErrors += 1
      }
    }
  }
  try {
    await Promise.all(
      Array.from({ length: options.clients }, (_, index) => {
        const profile = options.profiles[index % options.profiles.length]
        if (profile === undefined) throw new Error('no load profiles')
        return loop(profile)
      }),
    )
  } finally {
    if (sampler !== undefined) clearInterval(sampler)
    delay.disable()
  }
  const elapsed = performance.now() - started
  const sorted = all.sort((a, b) => a - b)
  return {
    requests: all.length,
    byStatus,
    byProfile,
    firstFailures,
    wrongPrincipals,
    transportErrors,
    unavailableWithoutRetryAfter,
    unavailableAnswers,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    requestsPerSecond: (all.length * 1000) / elapsed,
    samples,
  }
}
