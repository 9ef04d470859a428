import type { GuardPipeline } from '@portcullis/core/authorization'
import type { CompiledPolicy } from '@portcullis/core/policy'
import { type MCPResourceMark, type MCPRouteOptions, markFromOptions, markOf } from './marking.js'

/** A route declared with the route option form, as an inspectable route registry reports it. */
export interface MCPRouteDeclaration {
  /** HTTP method in any case (`GET`). */
  readonly method: string
  /** Full route path pattern from the application root (`/tenants/:tenantId/report`). */
  readonly path: string
  readonly options?: MCPRouteOptions
  /** The route's handlers: wrapper-form marks on them count too. */
  readonly handlers?: readonly unknown[]
  /** The route's compiled policy, when known: decides `cacheScope` and `listing: 'readable'`. */
  readonly policy?: CompiledPolicy
  /** The route's guards, when known (`listing: 'readable'` dry-runs them). */
  readonly guards?: GuardPipeline
}

/** The mark of a declared route: its route options, else the first wrapper-marked handler. */
export function declarationMark(route: MCPRouteDeclaration): MCPResourceMark | undefined {
  return markFromOptions(route.options) ?? route.handlers?.map(markOf).find((mark) => mark !== undefined)
}

/** Every route the application serves, as found by the adapter. */
export interface DiscoveredRoute {
  readonly method: string
  readonly path: string
  readonly mark?: MCPResourceMark
}
