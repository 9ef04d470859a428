import type { AuthorizationRequest, AuthorizationResolver } from '../authorization/resolver.js'
import { AuthorizationSnapshot, type AuthorizationSnapshotInit } from '../authorization/snapshot.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { CacheTrust } from '../revocation/cache-trust.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import {
  ACTIVE_ORGANIZATION_SNAPSHOT_ATTRIBUTE as ACTIVE,
  sessionActiveOrganization,
} from './active-organization.js'
import type { MembershipStore } from './port.js'
import type { Membership } from './records.js'
import { OrganizationRoles } from './roles.js'

export interface MembershipResolverOptions {
  /** Where memberships are read: one `membershipsOf` per request whose account is not cached. */
  readonly memberships: Pick<MembershipStore, 'membershipsOf'>
  /** The catalogue whose permissions join each tenant's role (default owner, admin, member). */
  readonly roles?: OrganizationRoles
  /**
   * The application's own resolver for everything but memberships (scopes, roles, capabilities, teams,
   * attributes, tenants of its own). Its `null` stays `null` (401); its tenants are kept unless a
   * membership names the same organization, which wins.
   */
  readonly resolver?: AuthorizationResolver
  /**
   * The revocation notices: a `membership` or `account` notice evicts that account here, on every
   * instance. Without them nothing is cached beyond `stalenessMs`.
   */
  readonly notices?: RevocationNotices
  /** How long a read is believed while notices are not trusted (or absent). Default 0: every request reads. */
  readonly stalenessMs?: number
  /** How long a read is believed while notices are trusted. Default 60 s. */
  readonly trustedTtlMs?: number
  /** Accounts kept at most (the oldest go first). Default 10 000. */
  readonly maxEntries?: number
  /** Milliseconds since the epoch; injectable for tests. */
  readonly clock?: () => number
}

/** An `AuthorizationResolver` that fills `tenants` from memberships; `close()` stops listening to notices. */
export interface MembershipResolver extends AuthorizationResolver {
  close(): void
  /**
   * Forgets the account's cached memberships on this instance at once. Call it after a change this
   * instance made for the account (an invitation accepted, an organization created, a request to join
   * approved): the account's next request here reads them, though the change's `membership` notice,
   * which does the same on every instance, may not have come back yet.
   */
  evict(accountId: string): void
}

type Tenants = ReadonlyMap<string, readonly string[]>

interface Entry {
  readonly tenants: Tenants
  readonly readAt: number
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigurationError('organizations.invalid_resolver', `${name} must be a non-negative integer`)
  }
  return value
}

function tenantsOf(memberships: readonly Membership[], roles: OrganizationRoles): Tenants {
  const tenants = new Map<string, readonly string[]>()
  for (const { organizationId, role } of memberships) {
    tenants.set(organizationId, Object.freeze([role, ...(roles.get(role)?.permissions ?? [])]))
  }
  return tenants
}

function withTenants(
  base: AuthorizationSnapshot | AuthorizationSnapshotInit,
  tenants: Tenants,
  active: string | undefined,
): AuthorizationSnapshotInit {
  const snapshot = AuthorizationSnapshot.from(base)
  const merged = new Map<string, readonly string[]>()
  for (const tenantId of snapshot.tenantIds) merged.set(tenantId, snapshot.tenantRoles(tenantId))
  for (const [tenantId, held] of tenants) merged.set(tenantId, held)
  // The session's choice shows only while a membership backs it; an application's own value never does.
  const { [ACTIVE]: _ignored, ...attributes } = snapshot.attributes
  return {
    scopes: snapshot.scopes,
    roles: snapshot.roles,
    capabilities: snapshot.capabilities,
    teams: snapshot.teams,
    tenants: merged,
    attributes:
      active !== undefined && tenants.has(active) ? { ...attributes, [ACTIVE]: active } : attributes,
  }
}

/**
 * The tenant part of `authorizationResolver`, filled for you: a user principal's organizations become
 * `AuthorizationSnapshot.tenants` (organization id -> its role, then that role's permissions), read
 * from the store once per request and cached per account until a `membership` or `account` notice
 * evicts it, on every instance. A role is only ever read from the store, never from the request, so
 * `requiresTenantRole` and MCP tenant templates work unchanged. A store failure rejects (503). A session's
 * active organization becomes the snapshot attribute `activeOrganizationId` (`activeOrganizationOf`) only
 * while the account is a member of it, so a removed member's choice vanishes with the membership notice.
 */
export function membershipResolver(options: MembershipResolverOptions): MembershipResolver {
  const store = options?.memberships
  if (typeof store?.membershipsOf !== 'function') {
    throw new ConfigurationError('organizations.invalid_resolver', 'membershipResolver needs { memberships }')
  }
  const roles = options.roles ?? OrganizationRoles.defaults
  const trust = new CacheTrust(
    options.notices,
    nonNegative(options.stalenessMs, 0, 'stalenessMs'),
    nonNegative(options.trustedTtlMs, 60_000, 'trustedTtlMs'),
  )
  const maxEntries = nonNegative(options.maxEntries, 10_000, 'maxEntries')
  const clock = options.clock ?? Date.now
  const cache = new Map<string, Entry>()
  const inFlight = new Map<string, Promise<Tenants>>()
  const unsubscribe =
    options.notices?.subscribe({
      revoked(notice) {
        if (notice.kind !== 'membership' && notice.kind !== 'account') return
        trust.moved()
        cache.delete(notice.accountId)
        inFlight.delete(notice.accountId)
      },
      flush() {
        trust.moved()
        cache.clear()
        inFlight.clear()
      },
    }) ?? (() => {})

  const read = (accountId: string): Promise<Tenants> => {
    const pending = inFlight.get(accountId)
    if (pending !== undefined) return pending
    const generation = trust.generation
    const started = clock()
    const reading = store.membershipsOf(accountId).then(
      (memberships) => {
        const tenants = tenantsOf(memberships, roles)
        if (inFlight.get(accountId) === reading) inFlight.delete(accountId)
        if (trust.enabled && maxEntries > 0 && trust.generation === generation) {
          cache.delete(accountId)
          cache.set(accountId, { tenants, readAt: started })
          if (cache.size > maxEntries) cache.delete(cache.keys().next().value as string)
        }
        return tenants
      },
      (error: unknown) => {
        if (inFlight.get(accountId) === reading) inFlight.delete(accountId)
        throw error
      },
    )
    inFlight.set(accountId, reading)
    return reading
  }

  const tenantsFor = (accountId: string): Tenants | Promise<Tenants> => {
    const entry = cache.get(accountId)
    if (entry !== undefined) {
      if (clock() - entry.readAt < trust.boundMs()) return entry.tenants
      cache.delete(accountId)
    }
    return read(accountId)
  }

  const resolve = async (
    request: AuthorizationRequest,
  ): Promise<AuthorizationSnapshot | AuthorizationSnapshotInit | null> => {
    const base = options.resolver === undefined ? {} : await options.resolver(request)
    if (base === null || request.principal.kind !== 'user') return base
    return withTenants(
      base,
      await tenantsFor(request.principal.id),
      sessionActiveOrganization(request.evidence),
    )
  }
  const evict = (accountId: string): void => {
    // A read already under way began before the change: the moved generation keeps it out of the cache.
    trust.moved()
    cache.delete(accountId)
    inFlight.delete(accountId)
  }
  return Object.assign(resolve, { close: unsubscribe, evict })
}
