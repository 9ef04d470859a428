import {
  MCPDispatcher,
  type MCPResourceReader,
  MCPResourceRegistry,
  type MCPServerInfo,
} from '@portcullis/core/mcp'
import type { RequestEvaluation } from '@portcullis/core/policy'
import type { OpenApiDocument } from '../openapi/document.js'
import type { RouteRegistry } from '../routing/route-registry.js'
import { declarationMark, type MCPRouteDeclaration } from './declaration.js'
import { endpointBasics, type RouteEndpointOptions } from './endpoint-options.js'
import { type ProtectedResource, protectedResource, scopesOf } from './protected-resource.js'
import { type DeclaredResource, readableBy, resourceCacheScope } from './resource-policy.js'
import type { ResourceRoutePath } from './route-path.js'
import {
  declaredRoutes,
  loadSkills,
  type ResolvedSetup,
  resolveSetup,
  resourceRoute,
  serverInfoOf,
} from './setup.js'

/** What a route-based endpoint reads of the adapter's security instance. */
export interface EndpointSecurity<C> {
  readonly routes: Pick<RouteRegistry<unknown>, 'list' | 'find' | 'onRegister'>
  openapi(): OpenApiDocument
  evaluation(request: C): RequestEvaluation
}

/** The bounds of one in-process read. */
export interface ReadLimits {
  readonly timeoutMs: number
  readonly maxBytes: number
}

/** The dispatcher of a route-based endpoint, and whether anyone authenticates at the endpoint. */
export interface BuiltEndpoint<C> {
  readonly dispatcher: MCPDispatcher<ResourceRoutePath, C>
  /** Nobody authenticates at the endpoint: its answers need no challenges and may sit in shared caches. */
  readonly open: boolean
}

/** What `routeEndpoint` works out when the endpoint is declared. */
export interface RouteEndpoint<C> {
  readonly path: string
  readonly maxBodyBytes: number
  readonly setup: ResolvedSetup<C>
  readonly resource: ProtectedResource | undefined
  /** The scopes of the endpoint's `requiresScope` guards, named in `insufficient_scope` challenges. */
  readonly scopes: readonly string[]
  /**
   * Builds the registry of the marked routes and the dispatcher, once every route is registered; `reader`
   * makes the adapter's in-process reader for the read limits.
   */
  build(reader: (limits: ReadLimits) => MCPResourceReader<ResourceRoutePath, C>): Promise<BuiltEndpoint<C>>
}

/**
 * The framework-neutral part of an MCP endpoint that is a route of the security instance (Fastify,
 * Hono): the checked path and body limit, the publishing setup over the registry's routes, RFC 9728
 * metadata, marks checked as routes register (a marking mistake throws where the route is declared), and
 * the dispatcher built over the marked routes with each route's policy as its `readable` dry run.
 */
export function routeEndpoint<C>(
  security: EndpointSecurity<C>,
  options: RouteEndpointOptions<C>,
  adapter: string,
): RouteEndpoint<C> {
  const { path, maxBodyBytes } = endpointBasics(options)
  const setup = resolveSetup<C>(
    {
      openapi: () => security.openapi(),
      ...options,
      routes: () => [...security.routes.list(), ...declaredRoutes(options.routes)],
    },
    adapter,
  )
  const resource =
    options.protectedResource === undefined ? undefined : protectedResource(options.protectedResource)
  security.routes.onRegister((route) => {
    const mark = declarationMark(route)
    if (mark !== undefined) resourceRoute(route.method, route.path, mark)
  })

  const build = async (
    reader: (limits: ReadLimits) => MCPResourceReader<ResourceRoutePath, C>,
  ): Promise<BuiltEndpoint<C>> => {
    const route = security.routes.find('POST', path)
    const open = route !== undefined && !route.policy.authenticates && !route.policy.excluded
    const skills = setup.skills === undefined ? undefined : await loadSkills(setup.skills)
    const registry = new MCPResourceRegistry<ResourceRoutePath>({
      scheme: setup.scheme,
      skillsEnabled: skills !== undefined,
    })
    const runtimes = new Map<string, DeclaredResource>()
    for (const declaration of declaredRoutes(setup.routes) as Iterable<MCPRouteDeclaration>) {
      const mark = declarationMark(declaration)
      if (mark === undefined) continue
      registry.register({ ...mark, target: resourceRoute(declaration.method, declaration.path, mark) })
      runtimes.set(mark.name, { declaration })
    }
    const openapi = setup.openapi ?? (() => security.openapi())
    const serverInfo: MCPServerInfo = setup.serverInfo ?? serverInfoOf(openapi())
    const dispatcher = new MCPDispatcher<ResourceRoutePath, C>({
      registry,
      serverInfo,
      openapi,
      reader: reader({ timeoutMs: setup.readTimeoutMs, maxBytes: setup.maxResourceBytes }),
      ...(skills === undefined ? {} : { skills }),
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
      ...(options.visible === undefined ? {} : { visible: options.visible }),
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
      listing: options.listing ?? 'all',
      readable: readableBy(runtimes, security),
      cacheScope: (entry) => resourceCacheScope(runtimes.get(entry.name)?.declaration),
      sharedCacheScope: open ? 'public' : 'private',
      maxBlobBytes: setup.maxResourceBytes,
    })
    return { dispatcher, open }
  }

  return { path, maxBodyBytes, setup, resource, scopes: scopesOf(options.guards ?? []), build }
}
