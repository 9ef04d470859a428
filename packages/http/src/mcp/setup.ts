import { ConfigurationError, type OptionsShape } from '@portcullis/core/errors'
import {
  DEFAULT_MAX_BLOB_BYTES,
  loadSkillCatalog,
  type MCPRegisteredResource,
  type MCPServerInfo,
  parseUriTemplate,
  type SkillCatalog,
  type SkillCatalogOptions,
} from '@portcullis/core/mcp'
import type { MCPRouteDeclaration } from './declaration.js'
import type { MCPResourceMark } from './marking.js'
import { parseResourceRoutePath, type ResourceRoutePath } from './route-path.js'

export interface SkillsOptions extends SkillCatalogOptions {
  /** A directory with one folder per skill, each holding a `SKILL.md`. */
  readonly directory: string
}

/** How an MCP endpoint publishes resources, whatever the framework; `C` is the adapter's request type. */
export interface PublishingOptions<C> {
  /** Scheme of concrete resource URIs (`<scheme>://<name>`) and of `<scheme>://openapi`. */
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
  readonly visible?: (resource: MCPRegisteredResource<ResourceRoutePath>, request: C) => boolean
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

export interface ResolvedSetup<C> extends PublishingOptions<C> {
  readonly scheme: string
  readonly maxResourceBytes: number
  readonly readTimeoutMs: number
}

/** Fills in the defaults (`defaultScheme` is the adapter's: `express`, `fastify`) and checks the limits. */
export function resolveSetup<C>(options: PublishingOptions<C>, defaultScheme: string): ResolvedSetup<C> {
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
    scheme: options.scheme ?? defaultScheme,
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
  const target = parseResourceRoutePath(path, mark.name)
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

/** The server info an OpenAPI document implies (`info.title` / `info.version`), with defaults. */
export function serverInfoOf(document: unknown): MCPServerInfo {
  const info = (document as { info?: { title?: unknown; version?: unknown } } | null)?.info
  const name = typeof info?.title === 'string' && info.title !== '' ? info.title : 'portcullis-mcp'
  const version = typeof info?.version === 'string' && info.version !== '' ? info.version : '0.0.0'
  return { name, version }
}

export function loadSkills({ directory, ...limits }: SkillsOptions): Promise<SkillCatalog> {
  return loadSkillCatalog(directory, limits)
}

/** The declared routes of a `routes` option (a list, or a function returning one). */
export function declaredRoutes(routes: PublishingOptions<unknown>['routes']): Iterable<MCPRouteDeclaration> {
  return typeof routes === 'function' ? routes() : (routes ?? [])
}

const OPTION_INVALID = 'mcp.option_invalid'
const SKILL_INVALID = 'mcp.skill_invalid'

export const SERVER_INFO_OPTIONS: OptionsShape<MCPServerInfo> = {
  name: { required: true, kind: 'string', code: OPTION_INVALID },
  version: { required: true, kind: 'string', code: OPTION_INVALID },
  title: { kind: 'string' },
}

export const SKILLS_OPTIONS: OptionsShape<SkillsOptions> = {
  directory: { required: true, kind: 'string', code: SKILL_INVALID },
  maxFileBytes: { kind: 'number', code: SKILL_INVALID },
  maxFilesPerSkill: { kind: 'number', code: SKILL_INVALID },
  maxDepth: { kind: 'number', code: SKILL_INVALID },
}
