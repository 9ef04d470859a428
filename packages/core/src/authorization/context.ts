import type { AuthenticationEvidence, Principal } from '../authentication/index.js'
import { AuthorizationSnapshot } from './snapshot.js'

/**
 * What a request is allowed to do, as established by route policy: the principal (null when anonymous),
 * the effective snapshot (already narrowed by credential restrictions) and the evidence of every
 * credential that verified.
 */
export interface SecurityContext {
  readonly principal: Principal | null
  readonly snapshot: AuthorizationSnapshot
  readonly evidence: readonly AuthenticationEvidence[]
}

/** A context whose principal is known (routes whose policy is not optional or anonymous). */
export interface AuthenticatedSecurityContext extends SecurityContext {
  readonly principal: Principal
}

/** Route path parameters as the adapter parsed them. Wildcards may capture several segments. */
export type RouteParameters = Readonly<Record<string, string | readonly string[] | undefined>>

/** The input of a guard: the security context plus the route's parsed path parameters. */
export interface GuardContext extends SecurityContext {
  readonly params: RouteParameters
}

/** The context of an anonymous request (public routes, optional policies with nothing presented). */
export const anonymousContext: SecurityContext = Object.freeze({
  principal: null,
  snapshot: AuthorizationSnapshot.empty,
  evidence: Object.freeze([]),
})
