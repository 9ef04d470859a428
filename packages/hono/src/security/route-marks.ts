import { anonymousContext, type RouteParameters } from '@portcullis/core/authorization'
import { ConfigurationError } from '@portcullis/core/errors'
import type { RequestEvaluation } from '@portcullis/core/policy'
import { problems } from '@portcullis/http/problem'
import type { HttpMethod, RouteOptions } from '@portcullis/http/routing'
import type { CompiledRoute, RouteRequest, SecurityCore } from '@portcullis/http/security'
import { problemResponse } from '@portcullis/http/web'
import type { Context, MiddlewareHandler, Next } from 'hono'
import { observe } from '../problem/problems.js'
import { routePattern } from './paths.js'
import { setMissingHeaders } from './response-headers.js'

/**
 * The context variable the application middleware sets while it runs: the `Cache-Control: no-store` of
 * an authenticated answer is then added in its one header pass (with the baseline), not in a pass of its
 * own. A route on an app without that middleware adds it itself.
 */
export const NO_STORE_PENDING = 'portcullis.noStore'

/** A Hono handler or middleware, as `app.routes` lists them. */
export type HonoHandler = (c: Context, next: Next) => unknown

/** What `ready` reads of a Hono app: its route list (every `app.get/post/...`, `app.use`, in order). */
export interface HonoApp {
  readonly routes: readonly {
    readonly method: string
    readonly path: string
    readonly handler: HonoHandler
  }[]
}

const METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/** The default of an authenticated answer, added only when its handler set no `Cache-Control` itself. */
export const NO_STORE = [['cache-control', 'no-store']] as const

/**
 * The neutral route request over a Hono context (read only by step-up routes and guards): no closure per
 * request, and the path parameters decoded only when a guard reads them.
 */
class HonoRouteRequest implements RouteRequest {
  readonly #c: Context
  constructor(c: Context) {
    this.#c = c
  }
  get params(): RouteParameters {
    return this.#c.req.param() as RouteParameters
  }
  header(name: string): string | undefined {
    return this.#c.req.raw.headers.get(name) ?? undefined
  }
  get cookieHeader(): string | undefined {
    return this.#c.req.raw.headers.get('cookie') ?? undefined
  }
}

/**
 * Where Hono keeps the handler it wrapped: `app.route(path, sub)` wraps every handler of a sub-app that
 * has its own `onError` in a function running that error handler, and names the wrapped handler under
 * this key (read the same way by Hono's own `inspectRoutes`).
 */
const COMPOSED_HANDLER = '__COMPOSED_HANDLER'

/**
 * The handler as it was declared, under every wrapper of a mounted sub-app with its own `onError`. Were
 * Hono to stop naming it, a marked route would be found uncompiled and refused, never served unsecured.
 */
function declaredHandler(handler: HonoHandler): HonoHandler {
  let current = handler
  for (;;) {
    const wrapped = (current as unknown as Record<string, unknown>)[COMPOSED_HANDLER]
    if (typeof wrapped !== 'function') return current
    current = wrapped as HonoHandler
  }
}

interface Mark {
  readonly options: RouteOptions
  /** Compiled routes by `METHOD path` (the path as declared in Hono). */
  readonly compiled: Map<string, CompiledRoute>
}

/** The refusal of a route whose options `ready` never compiled (declared after it, or on another app). */
function notSecured(label: string): ConfigurationError {
  return new ConfigurationError(
    'configuration.route_not_secured',
    `route ${label} carries Portcullis route options that security.ready(app) never compiled: it was ` +
      'declared after ready(), or on an app never passed to it. Declare every route, then call ready(app)',
    { option: `route ${label}` },
  )
}

/**
 * The route middleware of `security.route(options)` and `security.ready(app)`: each route middleware is
 * marked with its options; `ready` compiles every marked route of the app's route list; at request time
 * the middleware runs the compiled route's decision, or refuses a route it finds uncompiled.
 */
export function routeMarks(
  core: SecurityCore<HonoHandler>,
  evaluationOf: (c: Context) => RequestEvaluation,
  onError: ((error: unknown, c: Context) => void) | undefined,
) {
  const marks = new WeakMap<HonoHandler, Mark>()

  const route = (options: RouteOptions = {}): MiddlewareHandler => {
    core.checkOptions(options, 'security.route')
    const mark: Mark = { options, compiled: new Map() }
    const middleware: MiddlewareHandler = async (c, next) => {
      const method = c.req.method === 'HEAD' ? 'GET' : c.req.method
      const compiled = mark.compiled.get(`${method} ${c.req.routePath}`)
      if (compiled === undefined) {
        observe(onError, notSecured(`${method} ${c.req.routePath}`), c)
        return problemResponse(problems.routeNotSecured)
      }
      c.set('security', anonymousContext)
      const { authorizer } = compiled
      if (authorizer === undefined) return next()
      const decided = authorizer(evaluationOf(c), new HonoRouteRequest(c))
      const outcome = decided instanceof Promise ? await decided : decided
      const { setCookie } = outcome
      if (!outcome.granted) {
        return problemResponse(outcome.problem, setCookie === undefined ? [] : [setCookie])
      }
      c.set('security', outcome.context)
      await next()
      if (setCookie !== undefined) c.header('set-cookie', setCookie, { append: true })
      // the handler's own Cache-Control (`private, max-age=60`) stands, as on every adapter
      if (!outcome.noStore) return
      if (c.get(NO_STORE_PENDING) === false) c.set(NO_STORE_PENDING, true)
      else setMissingHeaders(c, NO_STORE)
    }
    marks.set(middleware as HonoHandler, mark)
    return middleware
  }

  const ready = (app: HonoApp): void => {
    const entries = app.routes
    entries.forEach((entry, index) => {
      const mark = marks.get(declaredHandler(entry.handler))
      if (mark === undefined) return
      const label = `${entry.method} ${entry.path}`
      if (!METHODS.has(entry.method)) {
        throw new ConfigurationError(
          'route.invalid_options',
          `${label}: security.route() is the middleware of one route (app.get, app.post, ...), not of app.use or app.all`,
        )
      }
      const key = `${entry.method} ${entry.path}`
      if (mark.compiled.has(key)) return
      const method = entry.method as HttpMethod
      const compiled = core.compileRoute(method, routePattern(entry.path), mark.options)
      const handlers = entries
        .slice(index + 1)
        .filter(
          (later) =>
            later.method === entry.method &&
            later.path === entry.path &&
            !marks.has(declaredHandler(later.handler)),
        )
        .map((later) => declaredHandler(later.handler))
      core.record(compiled, mark.options, handlers)
      mark.compiled.set(key, compiled)
    })
  }

  return { route, ready }
}
