import { anonymousContext } from '@portcullis/core/authorization'
import type { LocalRequestInfo } from '@portcullis/core/local-accounts'
import type { PolicyEvaluator, RequestEvaluation } from '@portcullis/core/policy'
import type { StepUpCookies } from '@portcullis/http/cookies'
import type { OpenApiDocument } from '@portcullis/http/openapi'
import type { RouteOptions, RouteRegistry } from '@portcullis/http/routing'
import { createSecurityCore, type SecurityOptions } from '@portcullis/http/security'
import { callerOf, WebCredentialSource } from '@portcullis/http/web'
import type { Context, ErrorHandler, MiddlewareHandler } from 'hono'
import { refuseMalformedJson } from '../body/json-body.js'
import { problemErrorHandler } from '../problem/problems.js'
import { setMissingHeaders } from './response-headers.js'
import { type HonoApp, type HonoHandler, NO_STORE, NO_STORE_PENDING, routeMarks } from './route-marks.js'

const EVALUATION = 'portcullis.evaluation'

export interface HonoSecurityOptions extends SecurityOptions<Context> {
  /**
   * The client's direct address, for rate limits and session records. Default: the socket address
   * `@hono/node-server` passes in `c.env.incoming`; on other runtimes pass your own (`getConnInfo`).
   */
  readonly clientAddress?: (c: Context) => string | undefined
}

/** What `createSecurity` returns. */
export interface HonoSecurity {
  /**
   * Application middleware, mounted first (`app.use(security.middleware)`): the header baseline, an
   * anonymous `c.var.security` for every request, `c.req.json()` answering a body that is not JSON with
   * 400 `request.invalid`, and the OpenAPI document at its configured path.
   */
  readonly middleware: MiddlewareHandler
  /**
   * The route options of one route, as its first middleware:
   * `app.get('/reports/:id', security.route({ auth: required(), guards }), handler)`. The policy and
   * guards run before the handler; `c.var.security` is the verified context. Options are checked here;
   * the route itself is compiled by `ready(app)`.
   */
  route(options?: RouteOptions): MiddlewareHandler
  /**
   * Compiles every route carrying `route(...)` options (startup errors for a bad policy, guards reading a
   * parameter the path lacks, a duplicate route) and records it for OpenAPI and MCP. Call it once every
   * route is declared, before serving. A route declared after it (or on an app never passed to it) is
   * never served: it answers 500 `configuration.route_not_secured`.
   */
  ready(app: HonoApp): void
  /** `app.onError(security.onError)`: problem+json for every error (typed errors by class, else 500). */
  readonly onError: ErrorHandler
  /** Every route compiled by `ready`. */
  readonly routes: RouteRegistry<HonoHandler>
  /** The OpenAPI 3.1 document of the registered routes (also served by `middleware`). */
  openapi(): OpenApiDocument
  readonly evaluator: PolicyEvaluator
  /** The request's policy evaluation, memoized: every mechanism and the resolver run at most once. */
  evaluation(c: Context): RequestEvaluation
  /** How `requiresStepUp` reads credentials: the header, and the per-purpose cookies (unless turned off). */
  readonly stepUp: { readonly header: string; readonly cookies: StepUpCookies | undefined }
  /** What rate limits and session records need of a request: client address, forwarded lines, agent. */
  requestInfo(c: Context): LocalRequestInfo
  /**
   * Lets in-process reads made for this request (MCP resource reads through `app.fetch`) share its
   * evaluation, so no mechanism runs twice.
   */
  shareEvaluation(c: Context): void
}

function nodeSocketAddress(c: Context): string | undefined {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming
  return incoming?.socket?.remoteAddress
}

/**
 * Creates the Hono integration: route policy and guards as route middleware, problem+json errors, the
 * header baseline and OpenAPI. Every configuration mistake throws a `ConfigurationError` at startup.
 */
export function createSecurity(config: HonoSecurityOptions): HonoSecurity {
  const { clientAddress = nodeSocketAddress, ...options } = config
  const core = createSecurityCore<HonoHandler, Context>(options, 'createSecurity')
  const { evaluator, registry, runtime } = core
  const shared = new WeakMap<Request, RequestEvaluation>()

  const evaluationOf = (c: Context): RequestEvaluation => {
    let evaluation = c.get(EVALUATION) as RequestEvaluation | undefined
    if (evaluation === undefined) {
      // an in-process request made for another one (an MCP read) shares that request's evaluation
      const caller = callerOf(c.req.raw)
      evaluation =
        (caller === undefined ? undefined : shared.get(caller)) ??
        evaluator.begin(new WebCredentialSource(c.req.raw))
      c.set(EVALUATION, evaluation)
    }
    return evaluation
  }
  const onError = problemErrorHandler(config.onError)
  const marks = routeMarks(core, evaluationOf, config.onError)
  const headers = core.headers.map(([name, value]) => [name.toLowerCase(), value] as const)
  const headersNoStore = [...NO_STORE, ...headers]
  const openapiPath = core.openapiPath

  const middleware: MiddlewareHandler = async (c, next) => {
    if (openapiPath !== undefined && c.req.method === 'GET' && c.req.path === openapiPath) {
      for (const [name, value] of headers) c.header(name, value)
      c.header('cache-control', 'no-cache')
      return c.json(core.openapi())
    }
    c.set('security', anonymousContext)
    c.set(NO_STORE_PENDING, false)
    refuseMalformedJson(c)
    await next()
    // an in-process request (an MCP read) never reaches a client: no headers to send (its reader takes
    // the status, content type and body only)
    if (callerOf(c.req.raw) !== undefined) return
    setMissingHeaders(c, c.get(NO_STORE_PENDING) === true ? headersNoStore : headers)
  }

  return {
    middleware,
    route: marks.route,
    ready: marks.ready,
    onError,
    routes: registry,
    openapi: core.openapi,
    evaluator,
    evaluation: evaluationOf,
    stepUp: Object.freeze({ header: runtime.stepUpHeader, cookies: runtime.stepUpCookies }),
    requestInfo: (c) => ({
      peerAddress: clientAddress(c),
      forwardedFor: c.req.header('x-forwarded-for'),
      userAgent: c.req.header('user-agent'),
    }),
    shareEvaluation: (c) => {
      shared.set(c.req.raw, evaluationOf(c))
    },
  }
}
