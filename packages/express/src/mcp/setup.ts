import {
  type MCPResourceReader,
  MCPResourceRegistry,
  type MCPServerInfo,
  type SkillCatalog,
} from '@portcullis/core/mcp'
import {
  type DeclaredResource,
  loadSkills,
  type MCPRouteDeclaration,
  minimalOpenApi,
  type PublishingOptions,
  type ResolvedSetup,
  type ResourceRoutePath,
  resourceRoute,
  serverInfoOf,
} from '@portcullis/http/mcp'
import type { Express, Request } from 'express'
import { markedRoutes, walkRoutes } from './discovery.js'
import { inProcessApp, invokeInProcess } from './loopback.js'
import { compileRoutePlan, isCurrent, type RoutePlan } from './route-plan.js'

/** The application whose marked routes are published (an Express 5 app). */
export type ResourceApp = Pick<Express, 'router'>

/** How the endpoint publishes resources; `scheme` defaults to `express`. */
export interface SetupOptions extends PublishingOptions<Request> {}

/** What a published route brings beside its registry entry: its compiled dispatch and its security. */
export interface ResourceRuntime extends DeclaredResource {
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

export async function buildResources(
  app: ResourceApp,
  setup: ResolvedSetup<Request>,
): Promise<BuiltResources> {
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
    serverInfoOf(
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
