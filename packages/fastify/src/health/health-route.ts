import { readOptions } from '@portcullis/core/errors'
import { exclude } from '@portcullis/core/policy'
import { HEALTH_ROUTE_OPTIONS, type HealthRouteOptions, healthHandler } from '@portcullis/http/health'
import type { FastifyInstance } from 'fastify'

/**
 * Adds a health route (`GET /healthz` by default, excluded from route policy and the OpenAPI document):
 * 200 `{ status: "ok", checks }` when every check passes, otherwise 503 with `Retry-After` and only the
 * names and states of the checks (never error messages, which may hold connection strings).
 */
export function healthRoute(fastify: FastifyInstance, options: HealthRouteOptions = {}): FastifyInstance {
  readOptions(options, 'healthRoute', HEALTH_ROUTE_OPTIONS)
  const answer = healthHandler(options)
  fastify.get(options.path ?? '/healthz', { config: { auth: exclude() } }, async (_request, reply) => {
    const { status, headers, body } = await answer()
    return reply.code(status).headers(headers).send(body)
  })
  return fastify
}
