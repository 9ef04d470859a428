import type { RouteGuard } from '@portcullis/core/authorization'
import type { AuthPolicy } from '@portcullis/core/policy'

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
 * Options of a route registered through a Portcullis router.
 *
 * Extension point: other modules add their own options by augmenting this interface, e.g.
 * `declare module '@portcullis/express' { interface RouteOptions { mcpResource?: string } }` (inside this
 * package: `declare module '../routing/route-options.js'`), and validate them at registration with
 * `security.routes.onRegister(listener)`.
 */
export interface RouteOptions {
  /** Which mechanisms the route accepts. Default: `createSecurity({ defaultPolicy })`. */
  readonly auth?: AuthPolicy
  /** Pure guards over the snapshot, plus at most one `requiresStepUp(purpose)`. */
  readonly guards?: readonly RouteGuard[]
  readonly openapi?: OperationDocumentation
}
