import { readOptions } from '@portcullis/core/errors'
import { HEALTH_ROUTE_OPTIONS, type HealthRouteOptions, healthHandler } from '@portcullis/http/health'
import type { Request, Response, Router } from 'express'

export type { HealthCheck, HealthRouteOptions } from '@portcullis/http/health'

/**
 * Mounts a health route: 200 `{ status: "ok", checks }` when every check passes, otherwise 503 with
 * `Retry-After` and only the names and states of the checks (never error messages, which may hold
 * connection strings).
 */
export function mountHealthRoute(router: Router, options: HealthRouteOptions = {}): Router {
  readOptions(options, 'mountHealthRoute', HEALTH_ROUTE_OPTIONS)
  const answer = healthHandler(options)
  router.get(options.path ?? '/healthz', async (_request: Request, response: Response) => {
    const { status, headers, body } = await answer()
    response.set(headers).status(status).json(body)
  })
  return router
}
