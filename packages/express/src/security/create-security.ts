import { compileGuards } from '@portcullis/core/authorization'
import { ConfigurationError, type OptionShapeDescription, readOptions } from '@portcullis/core/errors'
import {
  type AuthPolicy,
  anonymous,
  type CompiledPolicy,
  isAuthPolicy,
  PolicyEvaluator,
  type RequestEvaluation,
  required,
} from '@portcullis/core/policy'
import { type ErrorRequestHandler, type Request, type RequestHandler, Router } from 'express'
import { securityHeaders } from '../headers/security-headers.js'
import { MCP_ROUTE_OPTION_KEYS } from '../mcp/marking.js'
import { StepUpCookies } from '../oauth/cookies.js'
import { buildOpenApiDocument, type OpenApiDocument } from '../openapi/document.js'
import { problemErrorHandler } from '../problem/error-handler.js'
import { joinPath, parseRoutePath } from '../routing/paths.js'
import type { RouteOptions } from '../routing/route-options.js'
import { type HttpMethod, RouteRegistry } from '../routing/route-registry.js'
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
import { SECURE_ROUTER_OPTIONS, SECURITY_CONFIG_OPTIONS } from './config-options.js'
import { credentialSource } from './credential-source.js'
import { evaluationParent } from './evaluation-parent.js'
import { anonymousRoute, type RouteRuntime, routeGuardMiddleware } from './route-guard-middleware.js'
import { stepUpConsumedEvents } from './step-up-events.js'

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
  readonly routes: RouteRegistry
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

/** Route option keys every Portcullis router knows. */
const BUILT_IN_ROUTE_OPTIONS: readonly string[] = ['auth', 'guards', 'openapi', ...MCP_ROUTE_OPTION_KEYS]

// OpenAPI component names allow only these characters.
const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/
const HEADER_NAME = /^[A-Za-z0-9-]+$/

function bearerChallenge(config: SecurityConfig, policy: CompiledPolicy): string | undefined {
  const names = new Set(policy.alternatives.flat())
  const bearer = config.mechanisms.some(
    (m) => names.has(m.name) && m.securityScheme.type === 'http' && m.securityScheme.scheme === 'bearer',
  )
  return bearer ? 'Bearer' : undefined
}

function validate(config: SecurityConfig): void {
  for (const mechanism of config.mechanisms) {
    if (!COMPONENT_NAME.test(mechanism.name)) {
      throw new ConfigurationError('security.invalid_mechanism_name', `mechanism name "${mechanism.name}"`)
    }
  }
  if (config.defaultPolicy !== undefined && !isAuthPolicy(config.defaultPolicy)) {
    throw new ConfigurationError(
      'security.invalid_default_policy',
      'defaultPolicy must be a policy helper result',
    )
  }
  const header = config.stepUp?.header
  if (header !== undefined && !HEADER_NAME.test(header)) {
    throw new ConfigurationError('security.invalid_step_up_header', 'step-up header name must be a token')
  }
  const path = config.openapi === false ? undefined : config.openapi?.path
  if (path !== undefined && !path.startsWith('/')) {
    throw new ConfigurationError('security.invalid_openapi_path', 'openapi path must start with "/"')
  }
}

/**
 * Creates the Express integration: route policy, guards, problem+json errors, headers and OpenAPI.
 * Every configuration mistake (unknown mechanism, invalid guard composition, guard reading a parameter the
 * path lacks, duplicate route) throws a `ConfigurationError` at startup.
 */
export function createSecurity(config: SecurityConfig): Security {
  readOptions(config, 'createSecurity', SECURITY_CONFIG_OPTIONS)
  validate(config)
  const evaluator = new PolicyEvaluator({
    mechanisms: config.mechanisms,
    authorizationResolver: config.authorizationResolver,
  })
  const defaultPolicy: AuthPolicy =
    config.defaultPolicy ?? (config.mechanisms.length > 0 ? required() : anonymous())
  if (config.defaultPolicy !== undefined) evaluator.compile(defaultPolicy)
  const registry = new RouteRegistry()
  // One evaluation per request and instance, kept in `res.locals` (Express's per-request storage, a
  // null-prototype object) under a private symbol: adding a property to the request object itself changes
  // its shape on every authenticated request, and a WeakMap costs more in garbage collection.
  const slot = Symbol('portcullis.evaluation')
  const stepUpCookies = config.stepUp?.cookies ?? new StepUpCookies()
  const runtime: RouteRuntime = {
    evaluationOf(request) {
      // outside an Express app (a bare router) there are no locals: the request itself holds it
      const holder = (request.res?.locals ?? request) as { [slot]?: RequestEvaluation }
      let evaluation = holder[slot]
      if (evaluation === undefined) {
        // an in-process request made for another one (an MCP read) shares that request's evaluation
        const parent = evaluationParent(request)
        evaluation =
          parent === undefined ? evaluator.begin(credentialSource(request)) : runtime.evaluationOf(parent)
        holder[slot] = evaluation
      }
      return evaluation
    },
    noStoreAuthenticated: config.noStoreAuthenticated ?? true,
    stepUpHeader: (config.stepUp?.header ?? 'portcullis-step-up').toLowerCase(),
    stepUpCookies: stepUpCookies === false ? undefined : stepUpCookies,
    bearerMechanisms: new Set(
      config.mechanisms
        .filter((m) => m.securityScheme.type === 'http' && m.securityScheme.scheme === 'bearer')
        .map((m) => m.name),
    ),
    onStepUpConsumed: stepUpConsumedEvents(config.stepUp),
    onRejection: config.onRejection,
  }
  const errorHandler = problemErrorHandler(config.onError)

  const register =
    (inner: Router): RegisterRoute =>
    (method, path, options, handlers) => {
      const parsed = parseRoutePath(path)
      if (options.auth !== undefined && !isAuthPolicy(options.auth)) {
        throw new ConfigurationError(
          'route.invalid_options',
          `${method} ${path}: auth must be a policy helper result`,
        )
      }
      const policy = evaluator.compile(options.auth ?? defaultPolicy)
      const guards = compileGuards(options.guards ?? [], { stepUpVerifier: config.stepUp?.verifier })
      if (!policy.authenticates && (guards.guards.length > 0 || guards.stepUp !== undefined)) {
        throw new ConfigurationError(
          'route.guards_without_authentication',
          `${method} ${path}: guards need auth`,
        )
      }
      const missing = guards.parameters.filter((name) => !parsed.requiredParameters.includes(name))
      if (missing.length > 0) {
        throw new ConfigurationError(
          'route.unknown_parameter',
          `${method} ${path}: guards read :${missing.join(', :')}`,
        )
      }
      const security = policy.authenticates
        ? routeGuardMiddleware(runtime, {
            method,
            path,
            policy,
            guards,
            challenge: bearerChallenge(config, policy),
          })
        : anonymousRoute
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
        registry.add({
          method,
          path,
          openapiPaths: parsed.openapiPaths,
          parameters: parsed.parameters,
          options,
          policy,
          guards,
          handlers: Object.freeze([...handlers]),
        })
      } catch (error) {
        inner.stack.length = mounted
        throw error
      }
    }

  // Every key a route may carry; anything else is a typo and refused at registration.
  const routeOptionShape: OptionShapeDescription = Object.fromEntries(
    [...BUILT_IN_ROUTE_OPTIONS, ...(config.routeOptions ?? [])].map((key) => [key, {}]),
  )

  const router = (routerOptions: SecureRouterOptions = {}): SecureRouter => {
    readOptions(routerOptions, 'security.router', SECURE_ROUTER_OPTIONS)
    const prefix = validPrefix(routerOptions.prefix)
    const inner = Router()
    const add = register(inner)
    const method =
      (name: HttpMethod): RouteMethod =>
      (path: string, ...args: readonly unknown[]) => {
        const { options, handlers } = routeArguments(args)
        readOptions<object>(options, `route ${name} ${joinPath(prefix, path)}`, routeOptionShape)
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

  let cached: { version: number; document: OpenApiDocument } | undefined
  const openapi = (): OpenApiDocument => {
    const settings = config.openapi === false ? undefined : config.openapi
    if (cached?.version === registry.version) return cached.document
    const document = buildOpenApiDocument({
      info: settings?.info ?? { title: 'API', version: '0.0.0' },
      servers: settings?.servers,
      mechanisms: config.mechanisms,
      routes: registry.list(),
    })
    cached = { version: registry.version, document }
    return document
  }

  const middleware = appMiddleware({
    headers: config.headers === false ? [] : securityHeaders(config.headers ?? {}),
    openapiPath:
      config.openapi === false || config.openapi === undefined
        ? undefined
        : (config.openapi.path ?? '/openapi.json'),
    openapi,
  })
  return {
    middleware,
    router,
    routes: registry,
    openapi,
    errorHandler,
    evaluator,
    evaluation: (request) => runtime.evaluationOf(request),
    stepUp: Object.freeze({ header: runtime.stepUpHeader, cookies: runtime.stepUpCookies }),
  }
}
