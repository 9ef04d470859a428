import { isGrantName } from '../authorization/names.js'
import { OrganizationError, OrganizationErrorCodes } from './errors.js'

/**
 * The permissions the organization stores themselves check. Applications name their own permissions
 * beside these (any grant name); the stores only ever consult these four.
 */
export const OrganizationPermissions = {
  /** Change members' roles and remove members (at or below the actor's own rank). */
  manageMembers: 'organization.members.manage',
  /** Issue, resend and revoke invitations (for roles at or below the actor's own rank). */
  invite: 'organization.invitations.manage',
  rename: 'organization.rename',
  delete: 'organization.delete',
} as const

export type OrganizationPermission = (typeof OrganizationPermissions)[keyof typeof OrganizationPermissions]

/** The role every organization keeps at least one holder of: the highest rank, every permission. */
export const OWNER_ROLE = 'owner'

/** One role: a name, a rank (higher outranks lower) and the permissions it carries. */
export interface OrganizationRole {
  readonly name: string
  /** An integer from 0 to 1_000_000. Only the owner role may hold the highest rank. */
  readonly rank: number
  /** Permission names: the stores' own (`OrganizationPermissions`) and any the application names. */
  readonly permissions: readonly string[]
}

const ALL_STORE_PERMISSIONS: readonly string[] = Object.freeze(Object.values(OrganizationPermissions))

/** owner (rank 300, every permission), admin (200: members, invitations, rename), member (100: none). */
export const DEFAULT_ORGANIZATION_ROLES: readonly OrganizationRole[] = Object.freeze([
  Object.freeze({ name: OWNER_ROLE, rank: 300, permissions: ALL_STORE_PERMISSIONS }),
  Object.freeze({
    name: 'admin',
    rank: 200,
    permissions: Object.freeze([
      OrganizationPermissions.manageMembers,
      OrganizationPermissions.invite,
      OrganizationPermissions.rename,
    ]),
  }),
  Object.freeze({ name: 'member', rank: 100, permissions: Object.freeze([]) }),
])

const MAX_RANK = 1_000_000
const MAX_ROLE_NAME = 64

function rolesError(message: string): OrganizationError {
  return new OrganizationError(OrganizationErrorCodes.invalidRoles, message)
}

/**
 * The role catalogue of an application: data, not code. Every store instance of one deployment is
 * given the same catalogue; memberships store the role's name, and the ranks compared under the
 * store's lock come from here. The owner role must exist, carry every store permission, and rank
 * strictly above every other role. Custom roles (`{ name: 'billing', rank: 150, permissions:
 * ['invoices.read'] }`) sit anywhere below it.
 */
export class OrganizationRoles {
  static readonly defaults: OrganizationRoles = new OrganizationRoles(DEFAULT_ORGANIZATION_ROLES)

  readonly #roles = new Map<string, OrganizationRole>()

  constructor(roles: readonly OrganizationRole[] = DEFAULT_ORGANIZATION_ROLES) {
    if (!Array.isArray(roles) || roles.length === 0) throw rolesError('roles must be a non-empty list')
    for (const role of roles) {
      if (typeof role !== 'object' || role === null) throw rolesError('a role must be an object')
      const { name, rank, permissions } = role
      if (!isGrantName(name) || name.length > MAX_ROLE_NAME) {
        throw rolesError(`role names must be trimmed names of 1 to ${MAX_ROLE_NAME} characters`)
      }
      if (this.#roles.has(name)) throw rolesError(`role "${name}" appears twice`)
      if (!Number.isInteger(rank) || rank < 0 || rank > MAX_RANK) {
        throw rolesError(`role "${name}" needs an integer rank from 0 to ${MAX_RANK}`)
      }
      if (!Array.isArray(permissions) || !permissions.every((permission) => isGrantName(permission))) {
        throw rolesError(`role "${name}" needs a list of permission names`)
      }
      this.#roles.set(
        name,
        Object.freeze({ name, rank, permissions: Object.freeze([...new Set<string>(permissions)]) }),
      )
    }
    const owner = this.#roles.get(OWNER_ROLE)
    if (owner === undefined) throw rolesError(`the catalogue needs the "${OWNER_ROLE}" role`)
    if (!ALL_STORE_PERMISSIONS.every((permission) => owner.permissions.includes(permission))) {
      throw rolesError(`the "${OWNER_ROLE}" role must carry every organization permission`)
    }
    for (const role of this.#roles.values()) {
      if (role.name !== OWNER_ROLE && role.rank >= owner.rank) {
        throw rolesError(`role "${role.name}" must rank below "${OWNER_ROLE}"`)
      }
    }
    Object.freeze(this)
  }

  /** Every role, highest rank first. */
  get roles(): readonly OrganizationRole[] {
    return Object.freeze([...this.#roles.values()].sort((a, b) => b.rank - a.rank))
  }

  has(role: string): boolean {
    return this.#roles.has(role)
  }

  /** The role's definition, or undefined for a name the catalogue does not hold. */
  get(role: string): OrganizationRole | undefined {
    return this.#roles.get(role)
  }

  /** The role's rank; -1 for a name the catalogue does not hold (it outranks nobody). */
  rankOf(role: string): number {
    return this.#roles.get(role)?.rank ?? -1
  }

  /** Whether the role carries the permission (false for an unknown role). */
  allows(role: string, permission: string): boolean {
    return this.#roles.get(role)?.permissions.includes(permission) === true
  }

  /** Whether a holder of `actorRole` may grant `role`, or act on a member holding it: at or below. */
  atOrBelow(actorRole: string, role: string): boolean {
    const actor = this.#roles.get(actorRole)
    const other = this.#roles.get(role)
    return actor !== undefined && other !== undefined && other.rank <= actor.rank
  }

  toJSON(): readonly OrganizationRole[] {
    return this.roles
  }
}
