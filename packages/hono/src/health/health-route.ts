import { readOptions } from '@portcullis/core/errors'
import { HEALTH_ROUTE_OPTIONS, type HealthRouteOptions, healthHandler } from '@portcullis/http/health'
import type { AnyHono } from '../security/types.js'

/**
 * Adds a health route (`GET /healthz` by default, no route policy, left out of the OpenAPI document):
 * 200 `{ status: "ok", checks }` when every check passes, otherwise 503 with `Retry-After` and only the
 * names and states of the checks (never error messages, which may hold connection strings).
 */
export function healthRoute<A extends AnyHono>(app: A, options: HealthRouteOptions = {}): A {
  readOptions(options, 'healthRoute', HEALTH_ROUTE_OPTIONS)
  const answer = healthHandler(options)
  app.get(options.path ?? '/healthz', async (c) => {
    const { status, headers, body } = await answer()
    for (const [name, value] of Object.entries(headers)) c.header(name, value)
    return c.json(body, status as 200)
  })
  return app
}
