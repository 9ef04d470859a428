import type { RouteGuard } from '@portcullis/core/authorization'
import type { AuthPolicy } from '@portcullis/core/policy'
import type { MCPRouteOptions } from '../mcp/marking.js'

/** Free-form OpenAPI 3.1 operation fields merged into the generated operation. */
export interface OperationDocumentation {
  readonly summary?: string
  readonly description?: string
  readonly operationId?: string
  readonly tags?: readonly string[]
  readonly deprecated?: boolean
  /** Extra parameters (query, header); path parameters are generated from the route path. */
  readonly parameters?: readonly Readonly<Record<string, unknown>>[]
  readonly requestBody?: Readonly<Record<string, unknown>>
  /** Success responses by status; Portcullis adds its own 401/403/503 problem responses. */
  readonly responses?: Readonly<Record<string, Readonly<Record<string, unknown>>>>
}

/**
 * Options of a route registered through a Portcullis adapter (an Express secure router, a Fastify route's
 * `config`): its policy, guards, documentation and MCP resource mark.
 *
 * Extension point: other modules add their own options by augmenting this interface, e.g.
 * `declare module '@portcullis/http' { interface RouteOptions { auditCategory?: string } }` (the adapters
 * re-export it, so augmenting `@portcullis/express` or `@portcullis/fastify` works the same), and validate
 * them at registration with `security.routes.onRegister(listener)`.
 */
export interface RouteOptions extends MCPRouteOptions {
  /** Which mechanisms the route accepts. Default: `createSecurity({ defaultPolicy })`. */
  readonly auth?: AuthPolicy
  /** Pure guards over the snapshot, plus at most one `requiresStepUp(purpose)`. */
  readonly guards?: readonly RouteGuard[]
  readonly openapi?: OperationDocumentation
}
