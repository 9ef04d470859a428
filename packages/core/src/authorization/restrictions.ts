import type { AuthenticationEvidence, CredentialRestrictions } from '../authentication/index.js'
import { AuthorizationSnapshot } from './snapshot.js'

type Bound = ReadonlySet<string> | undefined

// A malformed bound (not an array) fails closed: it narrows that dimension to nothing.
function bound(values: readonly string[] | undefined): Bound {
  if (values === undefined) return undefined
  return Array.isArray(values) ? new Set(values) : new Set()
}

const keep = (values: readonly string[], limit: Bound): readonly string[] =>
  limit === undefined ? values : values.filter((value) => limit.has(value))

function tenantBound(restriction: CredentialRestrictions): ReadonlyMap<string, Bound> | undefined {
  const tenants = restriction.tenants
  if (tenants === undefined) return undefined
  if (typeof tenants !== 'object' || tenants === null) return new Map()
  return new Map(Object.entries(tenants).map(([tenant, roles]) => [tenant, bound(roles) ?? new Set()]))
}

function narrowOnce(
  snapshot: AuthorizationSnapshot,
  restriction: CredentialRestrictions,
): AuthorizationSnapshot {
  const roleBound = bound(restriction.roles)
  const tenantsBound = tenantBound(restriction)
  const tenants = new Map<string, readonly string[]>()
  for (const tenant of snapshot.tenantIds) {
    if (tenantsBound !== undefined && !tenantsBound.has(tenant)) continue
    // A role bound narrows tenant roles too; the tenant membership itself stays.
    const roles = keep(keep(snapshot.tenantRoles(tenant), roleBound), tenantsBound?.get(tenant))
    tenants.set(tenant, roles)
  }
  return AuthorizationSnapshot.from({
    scopes: keep(snapshot.scopes, bound(restriction.scopes)),
    roles: keep(snapshot.roles, roleBound),
    capabilities: keep(snapshot.capabilities, bound(restriction.capabilities)),
    teams: keep(snapshot.teams, bound(restriction.teams)),
    tenants,
    attributes: snapshot.attributes,
  })
}

/**
 * Applies every credential's restrictions to the snapshot. Restrictions only narrow: each present bound
 * intersects its dimension; tenants outside a tenant bound are removed; a role bound also narrows the
 * roles held in each tenant. Attributes are never touched. Several credentials intersect, never widen.
 */
export function applyRestrictions(
  snapshot: AuthorizationSnapshot,
  restrictions: Iterable<CredentialRestrictions | undefined>,
): AuthorizationSnapshot {
  let narrowed = snapshot
  for (const restriction of restrictions) {
    if (restriction !== undefined) narrowed = narrowOnce(narrowed, restriction)
  }
  return narrowed
}

/** The restrictions carried by a request's evidence, in order. */
export function restrictionsOf(
  evidence: readonly AuthenticationEvidence[],
): readonly (CredentialRestrictions | undefined)[] {
  return evidence.map((item) => item.restrictions)
}
