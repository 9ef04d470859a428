import { ConfigurationError } from '@portcullis/core/errors'
import { problems } from '@portcullis/http/problem'
import type { FastifyReply, FastifyRequest, RouteOptions as FastifyRouteOptions } from 'fastify'
import { sendProblem } from '../problem/send-problem.js'
import { portcullisConfig } from './route-config.js'
import type { RouteSurvey } from './route-survey.js'

/**
 * Set in the `config` of every route a Portcullis plugin compiled. Fastify copies `config` into the
 * route's context, so the mark travels to `request.routeOptions.config` and to the route survey; a
 * symbol, so it is invisible to JSON, `Object.keys` and other plugins.
 */
const COMPILED: unique symbol = Symbol.for('@portcullis/fastify.compiled')

/** The stable code of a route refused because its Portcullis options were never compiled. */
export const ROUTE_NOT_SECURED_CODE = 'configuration.route_not_secured'

/** Keys Fastify adds to every route's `config`. */
const FASTIFY_CONFIG_KEYS = new Set(['url', 'method'])

type RouteConfig = Readonly<Record<string | symbol, unknown>>

/** Marks a route being compiled (from the plugin's `onRoute` hook). */
export function markCompiled(route: FastifyRouteOptions): void {
  route.config = { ...(route.config ?? {}), [COMPILED]: true } as NonNullable<typeof route.config>
}

/** The Portcullis keys (declared, built-in, or a near miss of one) of a route `config` never compiled. */
export function uncompiledKeys(config: RouteConfig | undefined, declared: readonly string[]): string[] {
  if (config === undefined || config[COMPILED] === true) return []
  return Object.keys(portcullisConfig(config, declared)).filter((key) => !FASTIFY_CONFIG_KEYS.has(key))
}

/** `GET /early` (or `GET,POST /both`) from a route's `config`, as Fastify fills it in. */
function labelOf(config: RouteConfig): string {
  const method = Array.isArray(config.method) ? config.method.join(',') : String(config.method)
  return `${method} ${String(config.url)}`
}

function refusal(labels: readonly string[], keys: readonly string[]): ConfigurationError {
  const [first] = labels
  const routes = labels.length === 1 ? `route ${first}` : `routes ${labels.join(', ')}`
  return new ConfigurationError(
    ROUTE_NOT_SECURED_CODE,
    `${routes} ${labels.length === 1 ? 'carries' : 'carry'} Portcullis route options (${keys.join(', ')}) ` +
      'that the portcullis plugin never compiled: the route was declared before the plugin was ' +
      'registered, or in a scope the plugin does not reach. Register the plugin first ' +
      '(await app.register(portcullis, options)) and declare the route after it',
    { option: `route ${first}` },
  )
}

/**
 * The ready-time check: every route of the survey that carries Portcullis options no Portcullis plugin
 * compiled, as one `ConfigurationError` naming them (a `HEAD` route is left out when its `GET` is named).
 */
export function uncompiledRoutesError(
  survey: NonNullable<RouteSurvey>,
  declared: readonly string[],
): ConfigurationError | undefined {
  const labels: string[] = []
  const keys = new Set<string>()
  for (const { config } of survey) {
    const found = uncompiledKeys(config, declared)
    if (found.length === 0) continue
    labels.push(labelOf(config))
    for (const key of found) keys.add(key)
  }
  const named = labels.filter(
    (label) => !label.startsWith('HEAD ') || !labels.includes(`GET ${label.slice('HEAD '.length)}`),
  )
  return named.length === 0 ? undefined : refusal(named, [...keys])
}

/**
 * The runtime backstop, for when the routes could not be surveyed at startup: a request to a route
 * whose `config` carries Portcullis options that were never compiled is answered 500
 * `configuration.route_not_secured` (its handler never runs), and the route is logged once, through
 * the request's logger and `onError`. Returns true when it answered.
 */
export function uncompiledRouteBackstop(
  declared: readonly string[],
  onError: ((error: unknown, request: FastifyRequest) => void) | undefined,
): (request: FastifyRequest, reply: FastifyReply) => boolean {
  const logged = new Set<string>()
  return (request, reply) => {
    const config = request.routeOptions.config as unknown as RouteConfig | undefined
    // a request no route matched (404) carries no url in its config
    if (config?.url === undefined) return false
    const keys = uncompiledKeys(config, declared)
    if (keys.length === 0) return false
    const label = labelOf(config)
    if (!logged.has(label)) {
      logged.add(label)
      const error = refusal([label], keys)
      request.log.error({ code: error.code, route: label }, error.message)
      try {
        onError?.(error, request)
      } catch {
        // A failing observer must not change the answer.
      }
    }
    sendProblem(reply, problems.routeNotSecured)
    return true
  }
}
