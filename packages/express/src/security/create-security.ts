import { ConfigurationError, type OptionsShape, readOptions } from '@portcullis/core/errors'
import type { PolicyEvaluator, RequestEvaluation } from '@portcullis/core/policy'
import type { StepUpCookies } from '@portcullis/http/cookies'
import type { OpenApiDocument } from '@portcullis/http/openapi'
import { type HttpMethod, joinPath, type RouteOptions, type RouteRegistry } from '@portcullis/http/routing'
import { createSecurityCore } from '@portcullis/http/security'
import { type ErrorRequestHandler, type Request, type RequestHandler, Router } from 'express'
import { problemErrorHandler } from '../problem/error-handler.js'
import {
  INNER_ROUTER,
  type RegisterRoute,
  type RouteMethod,
  routeArguments,
  type SecureRouter,
  type SecureRouterOptions,
  validPrefix,
} from '../routing/secure-router.js'
import { appMiddleware } from './app-middleware.js'
import type { SecurityConfig } from './config.js'
import { credentialSource } from './credential-source.js'
import { evaluationParent } from './evaluation-parent.js'
import { anonymousRoute, routeGuardMiddleware } from './route-guard-middleware.js'

/** What `createSecurity` returns. */
export interface Security {
  /**
   * Application-level middleware, mounted first: security headers, an anonymous `request.security` for
   * every request, and the OpenAPI document at its configured path.
   */
  readonly middleware: RequestHandler
  /** A router whose routes take `{ auth, guards, openapi }`; mount it with `app.use(router)`. */
  router(options?: SecureRouterOptions): SecureRouter
  /** Every route registered through this instance's routers. */
  readonly routes: RouteRegistry<RequestHandler>
  /** The OpenAPI 3.1 document of the registered routes (also served by `middleware`). */
  openapi(): OpenApiDocument
  /** problem+json error middleware for the application's own routes (secured routes have it built in). */
  readonly errorHandler: ErrorRequestHandler
  readonly evaluator: PolicyEvaluator
  /**
   * The request's policy evaluation, memoized per request: however many policies are evaluated for it,
   * every mechanism and the authorization resolver run at most once.
   */
  evaluation(request: Request): RequestEvaluation
  /** How `requiresStepUp` reads credentials: the header, and the per-purpose cookies (unless turned off). */
  readonly stepUp: { readonly header: string; readonly cookies: StepUpCookies | undefined }
}

const SECURE_ROUTER_OPTIONS: OptionsShape<SecureRouterOptions> = {
  prefix: { kind: 'string', code: 'route.invalid_prefix' },
}

/**
 * Creates the Express integration: route policy, guards, problem+json errors, headers and OpenAPI.
 * Every configuration mistake (unknown mechanism, invalid guard composition, guard reading a parameter the
 * path lacks, duplicate route) throws a `ConfigurationError` at startup.
 */
export function createSecurity(config: SecurityConfig): Security {
  const core = createSecurityCore<RequestHandler, Request>(config, 'createSecurity')
  const { evaluator, registry, runtime } = core
  // One evaluation per request and instance, kept in `res.locals` (Express's per-request storage, a
  // null-prototype object) under a private symbol: adding a property to the request object itself changes
  // its shape on every authenticated request, and a WeakMap costs more in garbage collection.
  const slot = Symbol('portcullis.evaluation')
  const evaluationOf = (request: Request): RequestEvaluation => {
    // outside an Express app (a bare router) there are no locals: the request itself holds it
    const holder = (request.res?.locals ?? request) as { [slot]?: RequestEvaluation }
    let evaluation = holder[slot]
    if (evaluation === undefined) {
      // an in-process request made for another one (an MCP read) shares that request's evaluation
      const parent = evaluationParent(request)
      evaluation = parent === undefined ? evaluator.begin(credentialSource(request)) : evaluationOf(parent)
      holder[slot] = evaluation
    }
    return evaluation
  }
  const errorHandler = problemErrorHandler(config.onError)

  const register =
    (inner: Router): RegisterRoute =>
    (method, path, options, handlers) => {
      const route = core.compileRoute(method, path, options)
      const security =
        route.authorizer === undefined ? anonymousRoute : routeGuardMiddleware(evaluationOf, route.authorizer)
      // Mount, then record; undo the mount if recording is refused, so a failed registration leaves nothing.
      const mounted = inner.stack.length
      try {
        inner[method.toLowerCase() as Lowercase<HttpMethod>](path, security, ...handlers, errorHandler)
      } catch (error) {
        inner.stack.length = mounted
        throw new ConfigurationError(
          'route.invalid_path',
          `route path "${path}" is not a valid Express path`,
          {
            cause: error,
          },
        )
      }
      try {
        core.record(route, options, handlers)
      } catch (error) {
        inner.stack.length = mounted
        throw error
      }
    }

  const router = (routerOptions: SecureRouterOptions = {}): SecureRouter => {
    readOptions(routerOptions, 'security.router', SECURE_ROUTER_OPTIONS)
    const prefix = validPrefix(routerOptions.prefix)
    const inner = Router()
    const add = register(inner)
    const method =
      (name: HttpMethod): RouteMethod =>
      (path: string, ...args: readonly unknown[]) => {
        const where = `route ${name} ${joinPath(prefix, path)}`
        const { options, handlers } = routeArguments(args, where)
        core.checkOptions(options, where)
        add(name, joinPath(prefix, path), options as RouteOptions, handlers)
        return secure
      }
    const handle: RequestHandler = (request, response, next) => inner(request, response, next)
    Object.defineProperty(handle, INNER_ROUTER, { value: inner })
    const secure = Object.assign(handle, {
      prefix,
      get: method('GET'),
      post: method('POST'),
      put: method('PUT'),
      patch: method('PATCH'),
      delete: method('DELETE'),
      options: method('OPTIONS'),
    }) as unknown as SecureRouter
    return secure
  }

  const middleware = appMiddleware({
    headers: core.headers,
    openapiPath: core.openapiPath,
    openapi: core.openapi,
  })
  return {
    middleware,
    router,
    routes: registry,
    openapi: core.openapi,
    errorHandler,
    evaluator,
    evaluation: evaluationOf,
    stepUp: Object.freeze({ header: runtime.stepUpHeader, cookies: runtime.stepUpCookies }),
  }
}
