import { AuthorizationDataError } from './errors.js'
import { isGrantName } from './names.js'

/** The plain shape an `authorizationResolver` answers with. Every field is optional. */
export interface AuthorizationSnapshotInit {
  readonly scopes?: Iterable<string>
  readonly roles?: Iterable<string>
  readonly capabilities?: Iterable<string>
  readonly teams?: Iterable<string>
  /** Tenant id -> roles in that tenant. A tenant with no roles is still a membership. */
  readonly tenants?: Readonly<Record<string, Iterable<string>>> | ReadonlyMap<string, Iterable<string>>
  /** Application data carried along for handlers; never consulted by guards, never narrowed. */
  readonly attributes?: Readonly<Record<string, unknown>>
}

/** The JSON form of a snapshot (`toJSON`). */
export interface AuthorizationSnapshotJSON {
  readonly scopes: readonly string[]
  readonly roles: readonly string[]
  readonly capabilities: readonly string[]
  readonly teams: readonly string[]
  readonly tenants: Readonly<Record<string, readonly string[]>>
  readonly attributes: Readonly<Record<string, unknown>>
}

type GrantSet = ReadonlySet<string>

function grantSet(field: string, values: Iterable<string> | undefined): GrantSet {
  const set = new Set<string>()
  if (values === undefined) return set
  if (
    typeof values === 'string' ||
    typeof (values as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function'
  ) {
    throw new AuthorizationDataError(
      'authorization.invalid_snapshot',
      `snapshot ${field} must be a list of names`,
    )
  }
  for (const value of values) {
    if (!isGrantName(value)) {
      throw new AuthorizationDataError(
        'authorization.invalid_snapshot',
        `snapshot ${field} holds a malformed name`,
      )
    }
    set.add(value)
  }
  return set
}

function tenantEntries(
  tenants: AuthorizationSnapshotInit['tenants'],
): Iterable<readonly [string, Iterable<string>]> {
  if (tenants === undefined) return []
  if (tenants instanceof Map) return tenants.entries()
  if (typeof tenants !== 'object' || tenants === null) {
    throw new AuthorizationDataError('authorization.invalid_snapshot', 'snapshot tenants must be a mapping')
  }
  return Object.entries(tenants as Readonly<Record<string, Iterable<string>>>)
}

const frozenList = (set: GrantSet): readonly string[] => Object.freeze([...set])

/**
 * The server-resolved grants of one authenticated principal on one request: scopes, roles, capabilities,
 * teams, and tenants (tenant id -> roles), plus opaque application attributes. Immutable; membership
 * checks are constant time. Build it with `AuthorizationSnapshot.from(init)`; malformed names throw
 * `AuthorizationDataError` (`authorization.invalid_snapshot`).
 */
export class AuthorizationSnapshot {
  static readonly empty: AuthorizationSnapshot = new AuthorizationSnapshot({})

  readonly #scopes: GrantSet
  readonly #roles: GrantSet
  readonly #capabilities: GrantSet
  readonly #teams: GrantSet
  readonly #tenants: ReadonlyMap<string, GrantSet>
  readonly attributes: Readonly<Record<string, unknown>>

  private constructor(init: AuthorizationSnapshotInit) {
    this.#scopes = grantSet('scopes', init.scopes)
    this.#roles = grantSet('roles', init.roles)
    this.#capabilities = grantSet('capabilities', init.capabilities)
    this.#teams = grantSet('teams', init.teams)
    const tenants = new Map<string, GrantSet>()
    for (const [tenant, roles] of tenantEntries(init.tenants)) {
      if (!isGrantName(tenant)) {
        throw new AuthorizationDataError(
          'authorization.invalid_snapshot',
          'snapshot holds a malformed tenant id',
        )
      }
      tenants.set(tenant, grantSet('tenant roles', roles))
    }
    this.#tenants = tenants
    const attributes = init.attributes ?? {}
    if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) {
      throw new AuthorizationDataError(
        'authorization.invalid_snapshot',
        'snapshot attributes must be an object',
      )
    }
    this.attributes = Object.freeze({ ...attributes })
    Object.freeze(this)
  }

  /** Returns `init` unchanged when it already is a snapshot, otherwise validates and builds one. */
  static from(init: AuthorizationSnapshot | AuthorizationSnapshotInit): AuthorizationSnapshot {
    return init instanceof AuthorizationSnapshot ? init : new AuthorizationSnapshot(init)
  }

  get scopes(): readonly string[] {
    return frozenList(this.#scopes)
  }
  get roles(): readonly string[] {
    return frozenList(this.#roles)
  }
  get capabilities(): readonly string[] {
    return frozenList(this.#capabilities)
  }
  get teams(): readonly string[] {
    return frozenList(this.#teams)
  }
  get tenantIds(): readonly string[] {
    return Object.freeze([...this.#tenants.keys()])
  }

  hasScope(scope: string): boolean {
    return this.#scopes.has(scope)
  }
  hasRole(role: string): boolean {
    return this.#roles.has(role)
  }
  hasCapability(capability: string): boolean {
    return this.#capabilities.has(capability)
  }
  inTeam(team: string): boolean {
    return this.#teams.has(team)
  }
  inTenant(tenantId: string): boolean {
    return this.#tenants.has(tenantId)
  }
  /** Roles held in `tenantId`; empty when not a member. */
  tenantRoles(tenantId: string): readonly string[] {
    const roles = this.#tenants.get(tenantId)
    return roles === undefined ? Object.freeze([]) : frozenList(roles)
  }
  /** True when the principal holds at least one of `roles` in `tenantId`. */
  hasTenantRole(tenantId: string, roles: Iterable<string>): boolean {
    const held = this.#tenants.get(tenantId)
    if (held === undefined) return false
    for (const role of roles) if (held.has(role)) return true
    return false
  }

  toJSON(): AuthorizationSnapshotJSON {
    return {
      scopes: this.scopes,
      roles: this.roles,
      capabilities: this.capabilities,
      teams: this.teams,
      tenants: Object.fromEntries([...this.#tenants].map(([tenant, roles]) => [tenant, frozenList(roles)])),
      attributes: this.attributes,
    }
  }
}
