import type { GuardPipeline, SecurityContext } from '@portcullis/core/authorization'
import type { MCPCacheScope, MCPRegisteredResource } from '@portcullis/core/mcp'
import type { PolicyOutcome, RequestEvaluation } from '@portcullis/core/policy'
import type { MCPRouteDeclaration } from './declaration.js'
import type { ResourceRoutePath } from './route-path.js'

/** What the dry run needs of a published route: its declaration (policy, guards), when it was declared. */
export interface DeclaredResource {
  readonly declaration: MCPRouteDeclaration | undefined
}

/**
 * `public` only for a route declared with `anonymous()`: its answer is the same for every caller. Any
 * route that authenticates (optional policies included), is excluded from Portcullis, or whose policy is
 * unknown (a plain Express route) is `private`.
 */
export function resourceCacheScope(declaration: MCPRouteDeclaration | undefined): MCPCacheScope {
  const policy = declaration?.policy
  return policy !== undefined && !policy.authenticates && !policy.excluded ? 'public' : 'private'
}

/** The synchronous guards admit the context. Templates: only guards that read no route parameter count. */
function guardsAdmit(
  guards: GuardPipeline | undefined,
  context: SecurityContext,
  templated: boolean,
): boolean {
  for (const guard of guards?.guards ?? []) {
    if (templated && guard.parameters.length > 0) continue
    if (!guard.check({ ...context, params: {} }).granted) return false
  }
  // a step-up guard is left out: checking it would spend the caller's one-use credential
  return true
}

/**
 * The dry run behind `listing: 'readable'`: the route's policy against the request's memoized evaluation
 * (the same authentication the read would use), then its guards; no handler runs. Routes without a known
 * policy (plain framework routes) and endpoints without `security` list everything.
 */
export function readableBy<C>(
  runtimes: ReadonlyMap<string, DeclaredResource>,
  security: { evaluation(request: C): RequestEvaluation } | undefined,
): (resource: MCPRegisteredResource<ResourceRoutePath>, request: C) => boolean | Promise<boolean> {
  return (resource, request) => {
    const declaration = runtimes.get(resource.name)?.declaration
    const policy = declaration?.policy
    if (security === undefined || policy === undefined) return true
    const decide = (outcome: PolicyOutcome) =>
      outcome.kind === 'granted' &&
      guardsAdmit(declaration?.guards, outcome.context, resource.kind === 'template')
    const outcome = security.evaluation(request).evaluate(policy)
    return outcome instanceof Promise ? outcome.then(decide) : decide(outcome)
  }
}
