import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import { compileGuards, type GuardPipeline } from '@portcullis/core/authorization'
import { ConfigurationError, type OptionShapeDescription, readOptions } from '@portcullis/core/errors'
import { noopInstrumentation } from '@portcullis/core/instrumentation'
import {
  type AuthPolicy,
  anonymous,
  type CompiledPolicy,
  isAuthPolicy,
  PolicyEvaluator,
  required,
} from '@portcullis/core/policy'
import { StepUpCookies } from '../cookies/cookies.js'
import { securityHeaders } from '../headers/security-headers.js'
import { MCP_ROUTE_OPTION_KEYS } from '../mcp/marking.js'
import { buildOpenApiDocument, type OpenApiDocument } from '../openapi/document.js'
import { type ParsedRoutePath, parseRoutePath } from '../routing/paths.js'
import type { RouteOptions } from '../routing/route-options.js'
import { type HttpMethod, RouteRegistry } from '../routing/route-registry.js'
import type { SecurityOptions } from './config.js'
import { SECURITY_CONFIG_OPTIONS } from './config-options.js'
import { type RouteAuthorizer, type RouteRuntime, routeAuthorizer } from './route-authorizer.js'
import { stepUpConsumedEvents } from './step-up-events.js'

/** Route option keys every Portcullis adapter knows. */
export const BUILT_IN_ROUTE_OPTIONS: readonly string[] = Object.freeze([
  'auth',
  'guards',
  'openapi',
  ...MCP_ROUTE_OPTION_KEYS,
])

// OpenAPI component names allow only these characters.
const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/
const HEADER_NAME = /^[A-Za-z0-9-]+$/

/** A route compiled for serving: its policy and guards, and the authorizer in front of its handlers. */
export interface CompiledRoute {
  readonly method: HttpMethod
  readonly path: string
  readonly parsed: ParsedRoutePath
  readonly policy: CompiledPolicy
  readonly guards: GuardPipeline
  /** Undefined for routes that do no credential work (`anonymous()`, `exclude()`). */
  readonly authorizer: RouteAuthorizer | undefined
}

/** What `createSecurityCore` gives an adapter: everything about security that is not its framework's. */
export interface SecurityCore<H> {
  readonly evaluator: PolicyEvaluator
  readonly defaultPolicy: AuthPolicy
  readonly registry: RouteRegistry<H>
  readonly runtime: RouteRuntime
  /** The header baseline merged with the overrides (empty with `headers: false`). */
  readonly headers: readonly (readonly [string, string])[]
  /** Where the OpenAPI document is served, or undefined for nowhere. */
  readonly openapiPath: string | undefined
  /** The OpenAPI document of the registered routes, rebuilt only when a route was added. */
  openapi(): OpenApiDocument
  /** Checks a route's options against the known keys (a typo is `configuration.unknown_option`). */
  checkOptions(options: unknown, where: string): void
  /**
   * Validates and compiles a route (startup errors for a bad policy, guards without authentication,
   * guards reading a parameter the path lacks). Nothing is recorded: the adapter mounts the route, then
   * calls `record`, and undoes the mount when `record` throws.
   */
  compileRoute(method: HttpMethod, path: string, options: RouteOptions): CompiledRoute
  /** Records a mounted route (listeners may refuse it by throwing). */
  record(route: CompiledRoute, options: RouteOptions, handlers: readonly H[]): void
}

function bearerChallenge(mechanisms: readonly AuthenticationMechanism[], policy: CompiledPolicy) {
  const names = new Set(policy.alternatives.flat())
  const bearer = mechanisms.some(
    (m) => names.has(m.name) && m.securityScheme.type === 'http' && m.securityScheme.scheme === 'bearer',
  )
  return bearer ? 'Bearer' : undefined
}

function validate<R>(config: SecurityOptions<R>): void {
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

function runtimeOf<R>(config: SecurityOptions<R>): RouteRuntime {
  const stepUpCookies = config.stepUp?.cookies ?? new StepUpCookies()
  return {
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
    instrumentation: config.instrumentation === noopInstrumentation ? undefined : config.instrumentation,
    mechanismNames: new Set(config.mechanisms.map((m) => m.name)),
  }
}

/**
 * The framework-neutral half of an adapter's `createSecurity`: checks the configuration, compiles the
 * default policy, owns the route registry and the OpenAPI document, and compiles each route into the
 * authorizer the adapter puts in front of its handlers. Every configuration mistake throws a
 * `ConfigurationError` at startup. `where` names the factory in option errors (`createSecurity`).
 */
export function createSecurityCore<H, R = unknown>(
  config: SecurityOptions<R>,
  where: string,
): SecurityCore<H> {
  readOptions(config as SecurityOptions<unknown>, where, SECURITY_CONFIG_OPTIONS)
  validate(config)
  const evaluator = new PolicyEvaluator({
    mechanisms: config.mechanisms,
    authorizationResolver: config.authorizationResolver,
  })
  const defaultPolicy: AuthPolicy =
    config.defaultPolicy ?? (config.mechanisms.length > 0 ? required() : anonymous())
  if (config.defaultPolicy !== undefined) evaluator.compile(defaultPolicy)
  const registry = new RouteRegistry<H>()
  const runtime = runtimeOf(config)
  // Every key a route may carry; anything else is a typo and refused at registration.
  const routeOptionShape: OptionShapeDescription = Object.fromEntries(
    [...BUILT_IN_ROUTE_OPTIONS, ...(config.routeOptions ?? [])].map((key) => [key, {}]),
  )

  const compileRoute = (method: HttpMethod, path: string, options: RouteOptions): CompiledRoute => {
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
    const authorizer = policy.authenticates
      ? routeAuthorizer(runtime, {
          method,
          path,
          policy,
          guards,
          challenge: bearerChallenge(config.mechanisms, policy),
        })
      : undefined
    return { method, path, parsed, policy, guards, authorizer }
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

  return {
    evaluator,
    defaultPolicy,
    registry,
    runtime,
    headers: config.headers === false ? [] : securityHeaders(config.headers ?? {}),
    openapiPath:
      config.openapi === false || config.openapi === undefined
        ? undefined
        : (config.openapi.path ?? '/openapi.json'),
    openapi,
    checkOptions: (options, at) => readOptions<object>(options as object, at, routeOptionShape),
    compileRoute,
    record: (route, options, handlers) =>
      registry.add({
        method: route.method,
        path: route.path,
        openapiPaths: route.parsed.openapiPaths,
        parameters: route.parsed.parameters,
        options,
        policy: route.policy,
        guards: route.guards,
        handlers: Object.freeze([...handlers]),
      }),
  }
}
