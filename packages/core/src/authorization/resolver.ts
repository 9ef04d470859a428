import type { AuthenticationEvidence, Principal } from '../authentication/index.js'
import { applyRestrictions, restrictionsOf } from './restrictions.js'
import { AuthorizationSnapshot, type AuthorizationSnapshotInit } from './snapshot.js'

/** What the resolver is told about the request: the verified principal and every credential's evidence. */
export interface AuthorizationRequest {
  readonly principal: Principal
  readonly evidence: readonly AuthenticationEvidence[]
}

/**
 * The application's `authorizationResolver`: loads scopes, roles, capabilities, teams and tenants for a
 * verified principal. Called once per authenticated request. Answer `null` when the principal is unknown
 * or disabled (401); throwing means the grant store is unavailable (503).
 */
export type AuthorizationResolver = (
  request: AuthorizationRequest,
) =>
  | Promise<AuthorizationSnapshot | AuthorizationSnapshotInit | null>
  | AuthorizationSnapshot
  | AuthorizationSnapshotInit
  | null

export type AuthorizationResult =
  | { readonly kind: 'authorized'; readonly snapshot: AuthorizationSnapshot }
  | { readonly kind: 'rejected'; readonly reason: string }
  | { readonly kind: 'unavailable'; readonly reason: string }

const FAILED: AuthorizationResult = Object.freeze({
  kind: 'unavailable',
  reason: 'authorization.resolver_failed',
})

const EMPTY: AuthorizationResult = Object.freeze({
  kind: 'authorized',
  snapshot: AuthorizationSnapshot.empty,
})

function settle(answer: unknown, request: AuthorizationRequest): AuthorizationResult {
  if (answer === null) return { kind: 'rejected', reason: 'authorization.principal_rejected' }
  if (typeof answer !== 'object') return { kind: 'unavailable', reason: 'authorization.malformed_answer' }
  let snapshot: AuthorizationSnapshot
  try {
    snapshot = AuthorizationSnapshot.from(answer as AuthorizationSnapshot | AuthorizationSnapshotInit)
  } catch {
    return FAILED
  }
  return { kind: 'authorized', snapshot: applyRestrictions(snapshot, restrictionsOf(request.evidence)) }
}

/**
 * Runs the resolver once and narrows its answer by every credential's restrictions. Without a resolver
 * the snapshot is empty. Synchronous when the resolver answers synchronously. Never throws or rejects.
 */
export function resolveAuthorization(
  resolver: AuthorizationResolver | undefined,
  request: AuthorizationRequest,
): AuthorizationResult | Promise<AuthorizationResult> {
  if (resolver === undefined) {
    // no resolver and no restricting credential: the shared empty grant, nothing to build
    for (const item of request.evidence) {
      if (item.restrictions !== undefined) return settle(AuthorizationSnapshot.empty, request)
    }
    return EMPTY
  }
  let answer: ReturnType<AuthorizationResolver>
  try {
    answer = resolver(request)
  } catch {
    return FAILED
  }
  if (typeof (answer as { then?: unknown } | null)?.then !== 'function') return settle(answer, request)
  return Promise.resolve(answer).then(
    (value) => settle(value, request),
    () => FAILED,
  )
}

function intersect(lists: readonly (readonly string[])[]): readonly string[] | undefined {
  const [first, ...rest] = lists
  if (first === undefined) return undefined
  return first.filter((value) => rest.every((list) => list.includes(value)))
}

/**
 * A ready-made resolver for workload-only APIs: treats the credentials' own restrictions as their grants
 * (API-key records, token scopes). Dimensions no credential bounds stay empty; several credentials
 * intersect. Use a real resolver whenever grants live in an application store.
 */
export const grantsFromCredentials: AuthorizationResolver = ({ evidence }) => {
  const restrictions = evidence.flatMap((item) =>
    item.restrictions === undefined ? [] : [item.restrictions],
  )
  const pick = (field: 'scopes' | 'roles' | 'capabilities' | 'teams') =>
    intersect(restrictions.flatMap((item) => (item[field] === undefined ? [] : [item[field]])))
  const tenantMaps = restrictions.flatMap((item) => (item.tenants === undefined ? [] : [item.tenants]))
  const [firstTenants, ...otherTenants] = tenantMaps
  const tenants = new Map<string, readonly string[]>()
  for (const [tenant, roles] of Object.entries(firstTenants ?? {})) {
    const others = otherTenants.map((map) => (Object.hasOwn(map, tenant) ? map[tenant] : undefined))
    if (others.some((value) => value === undefined)) continue
    tenants.set(tenant, intersect([roles, ...(others as readonly (readonly string[])[])]) ?? [])
  }
  return {
    scopes: pick('scopes') ?? [],
    roles: pick('roles') ?? [],
    capabilities: pick('capabilities') ?? [],
    teams: pick('teams') ?? [],
    tenants,
  }
}
