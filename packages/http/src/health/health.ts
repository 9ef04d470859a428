import { numberBetween, type OptionsShape } from '@portcullis/core/errors'

/** One named dependency check; resolves when healthy, rejects (or resolves false) when not. */
export type HealthCheck = () => Promise<boolean | undefined> | boolean | undefined

export interface HealthRouteOptions {
  /** Path of the route. Default `/healthz`. */
  readonly path?: string
  /** Named dependency checks (database, JWKS, ...). Every check runs on each request. */
  readonly checks?: Readonly<Record<string, HealthCheck>>
  /** Upper bound for each check, in milliseconds. Default 2000. */
  readonly timeoutMs?: number
}

export const HEALTH_ROUTE_OPTIONS: OptionsShape<HealthRouteOptions> = {
  path: { kind: 'string' },
  checks: {
    kind: 'object',
    check: (checks) =>
      Object.values(checks as Record<string, unknown>).every((check) => typeof check === 'function')
        ? undefined
        : 'must map names to check functions',
  },
  // setTimeout fires at once for delays above 2^31 - 1 ms
  timeoutMs: { kind: 'number', check: numberBetween(1, 2 ** 31 - 1) },
}

type CheckStatus = 'ok' | 'failed' | 'timeout'

async function runCheck(check: HealthCheck, timeoutMs: number): Promise<CheckStatus> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<CheckStatus>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs)
  })
  try {
    const outcome = Promise.resolve()
      .then(check)
      .then(
        (value): CheckStatus => (value === false ? 'failed' : 'ok'),
        (): CheckStatus => 'failed',
      )
    return await Promise.race([outcome, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** The answer of a health route, for the adapter to write. */
export interface HealthAnswer {
  readonly status: 200 | 503
  readonly headers: Readonly<Record<string, string>>
  readonly body: { readonly status: 'ok' | 'unavailable'; readonly checks: Readonly<Record<string, string>> }
}

/**
 * The health route's handler: 200 `{ status: "ok", checks }` when every check passes, otherwise 503 with
 * `Retry-After` and only the names and states of the checks (never error messages, which may hold
 * connection strings). Always `no-store`.
 */
export function healthHandler(options: HealthRouteOptions): () => Promise<HealthAnswer> {
  const checks = Object.entries(options.checks ?? {})
  const timeoutMs = options.timeoutMs ?? 2000
  return async () => {
    const results = await Promise.all(
      checks.map(async ([name, check]) => [name, await runCheck(check, timeoutMs)] as const),
    )
    const healthy = results.every(([, status]) => status === 'ok')
    return {
      status: healthy ? 200 : 503,
      headers: healthy
        ? { 'Cache-Control': 'no-store' }
        : { 'Cache-Control': 'no-store', 'Retry-After': '5' },
      body: { status: healthy ? 'ok' : 'unavailable', checks: Object.fromEntries(results) },
    }
  }
}
