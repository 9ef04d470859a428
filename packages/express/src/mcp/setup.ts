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
import { discoverRoutes, type MCPRouteDeclaration, markedRoutes } from './discovery.js'
import { type AppDispatch, invokeInProcess } from './loopback.js'
import type { MCPResourceMark } from './marking.js'
import { minimalOpenApi } from './openapi-fallback.js'
import { parseRoutePath, type ResourceRoutePath } from './route-path.js'

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
 * Validates a marked route: only GET, a path made of literals and `:parameters`, and template variables
 * exactly equal to the route parameters (a non-template resource may have no parameters).
 */
export function resourceRoute(method: string, path: string, mark: MCPResourceMark): ResourceRoutePath {
  if (method.toUpperCase() !== 'GET') {
    throw new ConfigurationError(
      'mcp.route_not_get',
      `MCP resource ${JSON.stringify(mark.name)} is marked on ${method.toUpperCase()} ${path}; only GET routes are read-only resources`,
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

/** Discovers, validates and registers the marked routes of `app`; loads skills; builds the reader. */
export interface BuiltResources {
  readonly registry: MCPResourceRegistry<ResourceRoutePath>
  readonly openapi: () => unknown
  readonly serverInfo: MCPServerInfo
  readonly skills: SkillCatalog | undefined
  readonly read: MCPResourceReader<ResourceRoutePath, Request>
}

function loadSkills({ directory, ...limits }: SkillsOptions): Promise<SkillCatalog> {
  return loadSkillCatalog(directory, limits)
}

export async function buildResources(app: ResourceApp, setup: ResolvedSetup): Promise<BuiltResources> {
  const handle: unknown = Reflect.get(app, 'handle')
  if (typeof handle !== 'function') {
    throw new ConfigurationError('mcp.app_invalid', 'attach() needs an Express 5 application')
  }
  const dispatch: AppDispatch = (request, response, done) => handle.call(app, request, response, done)
  const discovered = discoverRoutes(app.router)
  const declared = typeof setup.routes === 'function' ? setup.routes() : (setup.routes ?? [])
  const marked = markedRoutes(discovered, declared)
  const skills: SkillCatalog | undefined =
    setup.skills === undefined ? undefined : await loadSkills(setup.skills)
  const registry = new MCPResourceRegistry<ResourceRoutePath>({
    scheme: setup.scheme,
    skillsEnabled: skills !== undefined,
  })
  for (const { method, path, mark } of marked)
    registry.register({ ...mark, target: resourceRoute(method, path, mark) })
  const fallbackInfo = setup.serverInfo ?? { name: 'portcullis-mcp', version: '0.0.0' }
  const openapi = setup.openapi ?? (() => minimalOpenApi(discovered, fallbackInfo))
  const serverInfo =
    setup.serverInfo ??
    infoOf(
      await Promise.resolve()
        .then(openapi)
        .catch(() => undefined),
    )
  const read: MCPResourceReader<ResourceRoutePath, Request> = (resource, params, request) =>
    invokeInProcess(dispatch, request, resource.target.build(params), {
      timeoutMs: setup.readTimeoutMs,
      maxBytes: setup.maxResourceBytes,
    })
  return { registry, openapi, serverInfo, skills, read }
}
