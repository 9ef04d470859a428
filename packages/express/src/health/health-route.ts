import { numberBetween, type OptionsShape, readOptions } from '@portcullis/core/errors'
import type { Request, Response, Router } from 'express'

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

const HEALTH_ROUTE_OPTIONS: OptionsShape<HealthRouteOptions> = {
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
  let timer: NodeJS.Timeout | undefined
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

/**
 * Mounts a health route: 200 `{ status: "ok", checks }` when every check passes, otherwise 503 with
 * `Retry-After` and only the names and states of the checks (never error messages, which may hold
 * connection strings).
 */
export function mountHealthRoute(router: Router, options: HealthRouteOptions = {}): Router {
  readOptions(options, 'mountHealthRoute', HEALTH_ROUTE_OPTIONS)
  const path = options.path ?? '/healthz'
  const checks = Object.entries(options.checks ?? {})
  const timeoutMs = options.timeoutMs ?? 2000
  router.get(path, async (_request: Request, response: Response) => {
    const results = await Promise.all(
      checks.map(async ([name, check]) => [name, await runCheck(check, timeoutMs)]),
    )
    const healthy = results.every(([, status]) => status === 'ok')
    response.set('Cache-Control', 'no-store')
    if (!healthy) response.set('Retry-After', '5')
    response
      .status(healthy ? 200 : 503)
      .json({ status: healthy ? 'ok' : 'unavailable', checks: Object.fromEntries(results) })
  })
  return router
}
