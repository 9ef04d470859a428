import { ConfigurationError } from '@portcullis/core/errors'
import {
  DEFAULT_MAX_BLOB_BYTES,
  loadSkillCatalog,
  type MCPRegisteredResource,
  type MCPResourceReader,
  MCPResourceRegistry,
  type MCPServerInfo,
  parseUriTemplate,
  type SkillCatalog,
  type SkillCatalogOptions,
} from '@portcullis/core/mcp'
import type { Express, Request } from 'express'
import { type MCPRouteDeclaration, markedRoutes, walkRoutes } from './discovery.js'
import { inProcessApp, invokeInProcess } from './loopback.js'
import type { MCPResourceMark } from './marking.js'
import { minimalOpenApi } from './openapi-fallback.js'
import { parseRoutePath, type ResourceRoutePath } from './route-path.js'
import { compileRoutePlan, isCurrent, type RoutePlan } from './route-plan.js'

/** The application whose marked routes are published (an Express 5 app). */
export type ResourceApp = Pick<Express, 'router'>

export interface SkillsOptions extends SkillCatalogOptions {
  /** A directory with one folder per skill, each holding a `SKILL.md`. */
  readonly directory: string
}

export interface SetupOptions {
  /** Scheme of concrete resource URIs (`<scheme>://<name>`) and of `<scheme>://openapi`. Default `express`. */
  readonly scheme?: string
  /** Reported by `initialize`. Default: the OpenAPI document's `info.title` / `info.version`. */
  readonly serverInfo?: MCPServerInfo
  readonly instructions?: string
  /** The application's OpenAPI 3.1 document. Default: a minimal document listing the app's routes. */
  readonly openapi?: () => unknown
  /** Routes declared with the route option form (from an inspectable route registry). */
  readonly routes?: Iterable<MCPRouteDeclaration> | (() => Iterable<MCPRouteDeclaration>)
  /** Opt-in skills catalog published as `skill://<name>/<path>`. */
  readonly skills?: SkillsOptions
  /** Hides handler resources per caller (hidden ones read as not found). */
  readonly visible?: (resource: MCPRegisteredResource<ResourceRoutePath>, request: Request) => boolean
  /**
   * `'all'` (default): every marked resource is listed. `'readable'`: only those whose route policy and
   * guards would admit the caller, decided by a dry run that runs no handler (templates: the policy and the
   * guards that read no route parameter).
   */
  readonly listing?: 'all' | 'readable'
  readonly pageSize?: number
  /** Largest resource body a read may return (text or blob). Default 25 MiB. */
  readonly maxResourceBytes?: number
  /** A marked route that does not answer in time fails the read with statusCode 504. Default 30 s. */
  readonly readTimeoutMs?: number
}

export interface ResolvedSetup extends SetupOptions {
  readonly scheme: string
  readonly maxResourceBytes: number
  readonly readTimeoutMs: number
}

export function resolveSetup(options: SetupOptions): ResolvedSetup {
  for (const [field, value] of [
    ['maxResourceBytes', options.maxResourceBytes],
    ['readTimeoutMs', options.readTimeoutMs],
  ] as const) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      throw new ConfigurationError('mcp.option_invalid', `${field} must be a positive integer`)
    }
  }
  return {
    ...options,
    scheme: options.scheme ?? 'express',
    maxResourceBytes: options.maxResourceBytes ?? DEFAULT_MAX_BLOB_BYTES,
    readTimeoutMs: options.readTimeoutMs ?? 30_000,
  }
}

/**
 * Validates a marked route: only GET, a path made of literals and `:parameters`, template variables
 * exactly equal to the route parameters (a non-template resource may have no parameters), and a
 * non-negative integer `ttlMs`.
 */
export function resourceRoute(method: string, path: string, mark: MCPResourceMark): ResourceRoutePath {
  if (method.toUpperCase() !== 'GET') {
    throw new ConfigurationError(
      'mcp.route_not_get',
      `MCP resource ${JSON.stringify(mark.name)} is marked on ${method.toUpperCase()} ${path}; only GET routes are read-only resources`,
    )
  }
  if (mark.ttlMs !== undefined && !(Number.isSafeInteger(mark.ttlMs) && mark.ttlMs >= 0)) {
    throw new ConfigurationError(
      'mcp.resource_invalid',
      `MCP resource ${JSON.stringify(mark.name)}: ttlMs must be a non-negative integer`,
    )
  }
  const target = parseRoutePath(path, mark.name)
  const wanted = mark.template === undefined ? [] : [...parseUriTemplate(mark.template).variables].sort()
  const have = [...target.parameters].sort()
  if (wanted.join('\u0000') === have.join('\u0000')) return target
  throw new ConfigurationError(
    mark.template === undefined ? 'mcp.route_parameters_unbound' : 'mcp.template_route_mismatch',
    mark.template === undefined
      ? `MCP resource ${JSON.stringify(mark.name)}: route ${path} has path parameters; give it an mcpResourceTemplate`
      : `MCP resource ${JSON.stringify(mark.name)}: template variables {${wanted.join('}, {')}} must be exactly the route parameters of ${path}`,
  )
}

function infoOf(document: unknown): MCPServerInfo {
  const info = (document as { info?: { title?: unknown; version?: unknown } } | null)?.info
  const name = typeof info?.title === 'string' && info.title !== '' ? info.title : 'portcullis-mcp'
  const version = typeof info?.version === 'string' && info.version !== '' ? info.version : '0.0.0'
  return { name, version }
}

/** What a published route brings beside its registry entry: its compiled dispatch and its security. */
export interface ResourceRuntime {
  plan: RoutePlan
  readonly recompile: () => RoutePlan
  /** The route's declaration (policy, guards) when it was declared through a route registry. */
  readonly declaration: MCPRouteDeclaration | undefined
}

/** Discovers, validates and registers the marked routes of `app`; loads skills; builds the reader. */
export interface BuiltResources {
  readonly registry: MCPResourceRegistry<ResourceRoutePath>
  readonly openapi: () => unknown
  readonly serverInfo: MCPServerInfo
  readonly skills: SkillCatalog | undefined
  readonly read: MCPResourceReader<ResourceRoutePath, Request>
  /** Per resource name. */
  readonly runtimes: ReadonlyMap<string, ResourceRuntime>
}

function loadSkills({ directory, ...limits }: SkillsOptions): Promise<SkillCatalog> {
  return loadSkillCatalog(directory, limits)
}

export async function buildResources(app: ResourceApp, setup: ResolvedSetup): Promise<BuiltResources> {
  const inProcess = inProcessApp(app)
  const walked = walkRoutes(app.router, false)
  const declared = typeof setup.routes === 'function' ? setup.routes() : (setup.routes ?? [])
  const marked = markedRoutes(walked, declared)
  const skills: SkillCatalog | undefined =
    setup.skills === undefined ? undefined : await loadSkills(setup.skills)
  const registry = new MCPResourceRegistry<ResourceRoutePath>({
    scheme: setup.scheme,
    skillsEnabled: skills !== undefined,
  })
  const runtimes = new Map<string, ResourceRuntime>()
  for (const { method, path, mark, handler, declaration } of marked) {
    const target = resourceRoute(method, path, mark)
    registry.register({ ...mark, target })
    const planTarget = { pattern: path, handler, templated: target.parameters.length > 0 }
    const recompile = () =>
      compileRoutePlan(app.router, planTarget, planTarget.templated ? undefined : target.build({}))
    runtimes.set(mark.name, { plan: recompile(), recompile, declaration })
  }
  const fallbackInfo = setup.serverInfo ?? { name: 'portcullis-mcp', version: '0.0.0' }
  const openapi =
    setup.openapi ??
    (() =>
      minimalOpenApi(
        walked.map(({ method, path }) => ({ method, path })),
        fallbackInfo,
      ))
  const serverInfo =
    setup.serverInfo ??
    infoOf(
      await Promise.resolve()
        .then(openapi)
        .catch(() => undefined),
    )
  const options = { timeoutMs: setup.readTimeoutMs, maxBytes: setup.maxResourceBytes }
  const read: MCPResourceReader<ResourceRoutePath, Request> = (resource, params, request) => {
    const runtime = runtimes.get(resource.name) as ResourceRuntime
    // a route or middleware added after attach(): walk the router again
    if (!isCurrent(runtime.plan)) runtime.plan = runtime.recompile()
    return invokeInProcess(inProcess, runtime.plan, request, resource.target.build(params), params, options)
  }
  return { registry, openapi, serverInfo, skills, read, runtimes }
}
