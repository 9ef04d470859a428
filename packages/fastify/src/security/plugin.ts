import { anonymousContext } from '@portcullis/core/authorization'
import { ConfigurationError } from '@portcullis/core/errors'
import { exclude, type RequestEvaluation } from '@portcullis/core/policy'
import type { HttpMethod } from '@portcullis/http/routing'
import { createSecurityCore, RawCredentialSource, type SecurityOptions } from '@portcullis/http/security'
import type {
  FastifyInstance,
  FastifyRequest,
  RouteOptions as FastifyRouteOptions,
  onRequestHookHandler,
  RouteHandlerMethod,
} from 'fastify'
import fp from 'fastify-plugin'
import { problemErrorHandler } from '../problem/send-problem.js'
import { rememberBaselineHeaders } from './baseline-headers.js'
import { inProcessParentOf } from './in-process.js'
import { routePattern } from './paths.js'
import type { FastifySecurity, FastifySecurityOptions } from './plugin-options.js'
import { portcullisConfig } from './route-config.js'
import { routeHook } from './route-hook.js'
import { surveyRoutes } from './route-survey.js'
import './types.js'
import { markCompiled, uncompiledRouteBackstop, uncompiledRoutesError } from './uncompiled-routes.js'

const RECORDED: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
/** Options Fastify itself reads from a plugin's options object. */
const FASTIFY_REGISTER_KEYS = new Set(['prefix', 'logLevel', 'logSerializers'])

const EVALUATION = Symbol('portcullis.evaluation')
type WithEvaluation = FastifyRequest & { [EVALUATION]: RequestEvaluation | null }

/** The options every adapter shares (Fastify's register keys and the plugin's own `errorHandler` left out). */
function securityOptions(options: FastifySecurityOptions): SecurityOptions<FastifyRequest> {
  const own = Object.entries(options).filter(
    ([key]) => !FASTIFY_REGISTER_KEYS.has(key) && key !== 'errorHandler',
  )
  return Object.fromEntries(own) as unknown as SecurityOptions<FastifyRequest>
}

function toList<T>(value: T | readonly T[] | undefined): T[] {
  if (value === undefined) return []
  return Array.isArray(value) ? [...value] : [value as T]
}

async function plugin(fastify: FastifyInstance, registered: FastifySecurityOptions): Promise<void> {
  if (registered.errorHandler !== undefined && typeof registered.errorHandler !== 'boolean') {
    throw new ConfigurationError(
      'configuration.invalid_option',
      'portcullis.errorHandler must be a boolean',
      {
        option: 'portcullis.errorHandler',
      },
    )
  }
  const config = securityOptions(registered)
  const core = createSecurityCore<RouteHandlerMethod, FastifyRequest>(config, 'portcullis')
  const { evaluator, registry, runtime } = core
  const headers = Object.fromEntries(core.headers)
  // the router's own URL errors (portcullisFrameworkErrors) answer before any hook: they read it here
  rememberBaselineHeaders(fastify, headers)

  const evaluationOf = (request: FastifyRequest): RequestEvaluation => {
    const holder = request as WithEvaluation
    let evaluation = holder[EVALUATION]
    if (evaluation === null) {
      // an in-process request made for another one (an MCP read) shares that request's evaluation
      const parent = inProcessParentOf(request)
      evaluation =
        parent === undefined ? evaluator.begin(new RawCredentialSource(request.raw)) : evaluationOf(parent)
      holder[EVALUATION] = evaluation
    }
    return evaluation
  }

  fastify.decorateRequest(EVALUATION, null)
  fastify.decorateRequest('security', null as unknown as typeof anonymousContext)

  const security: FastifySecurity = {
    routes: registry,
    openapi: core.openapi,
    evaluator,
    evaluation: evaluationOf,
    stepUp: Object.freeze({ header: runtime.stepUpHeader, cookies: runtime.stepUpCookies }),
  }
  fastify.decorate('portcullis', security)

  // Fail closed on routes whose Portcullis options were never compiled (declared before the plugin, or
  // in a scope it does not reach): when the app is ready every route is surveyed and such a route is a
  // startup error; if Fastify could not hand the routes over, each request checks its own route instead.
  const declared = config.routeOptions ?? []
  const backstop = uncompiledRouteBackstop(declared, config.onError)
  let checkEachRequest = true
  fastify.addHook('onReady', async () => {
    const survey = surveyRoutes(fastify)
    if (survey === undefined) return
    const error = uncompiledRoutesError(survey, declared)
    if (error !== undefined) throw error
    checkEachRequest = false
  })

  // Every request: the header baseline and an anonymous context (secured routes replace it once granted).
  fastify.addHook('onRequest', (request, reply, done) => {
    request.security = anonymousContext
    // an in-process request (an MCP read) never reaches a client: no headers to send
    if (inProcessParentOf(request) === undefined) reply.headers(headers)
    if (checkEachRequest && backstop(request, reply)) return
    done()
  })

  // Every route added after the plugin is a Portcullis route: its `config` is compiled at registration
  // (a mistake is a startup error) and its policy runs first in its own `onRequest` hooks.
  fastify.addHook('onRoute', (route: FastifyRouteOptions) => {
    const options = portcullisConfig(route.config, declared)
    const url = route.url
    const pattern = routePattern(url)
    let hook: onRequestHookHandler | undefined
    for (const method of toList(route.method)) {
      const recorded = RECORDED.has(method)
      const label = recorded ? (method as HttpMethod) : ('GET' as const)
      if (recorded) core.checkOptions(options, `route ${method} ${url}`)
      const compiled = core.compileRoute(label, pattern, options)
      if (recorded) core.record({ ...compiled, method: label }, options, [route.handler])
      if (hook === undefined && compiled.authorizer !== undefined) {
        hook = routeHook(evaluationOf, compiled.authorizer)
      }
    }
    if (hook !== undefined) route.onRequest = [hook, ...toList(route.onRequest)]
    markCompiled(route)
  })

  if (registered.errorHandler !== false) fastify.setErrorHandler(problemErrorHandler(config.onError))

  const openapiPath = core.openapiPath
  if (openapiPath !== undefined) {
    fastify.get(openapiPath, { config: { auth: exclude() } }, (_request, reply) => {
      reply.header('cache-control', 'no-cache').send(core.openapi())
    })
  }
}

/**
 * The Portcullis plugin for Fastify 5 (`fastify-plugin`, so its hooks reach every route of the app):
 * security headers and an anonymous `request.security` on every request, route policy and guards from
 * each route's `config: { auth, guards, openapi, mcpResource }` (compiled at registration, evaluated in
 * the route's first `onRequest` hook, before any body is read), problem+json errors through Fastify's
 * error handler, and the OpenAPI document. A route whose `config` carries Portcullis options the plugin
 * never compiled (declared before it, or in a scope it does not reach) is never served without them:
 * `ready()` refuses it with `configuration.route_not_secured`.
 */
export const portcullis = fp(plugin, { fastify: '5.x', name: '@portcullis/fastify' })
