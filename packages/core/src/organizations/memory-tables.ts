import type { MemorySignInMethods } from '../accounts/memory-tables.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { MemoryMailOutbox } from '../mail/memory-outbox.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { SerialQueue } from '../oauth/accounts/memory-state.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import { invalidOrganizationInput } from './errors.js'
import type { JoinRequest } from './join-request-port.js'
import type { Invitation, Membership, NewInvitation, Organization } from './records.js'
import { type OrganizationRoles, OWNER_ROLE } from './roles.js'

export interface OrganizationRow {
  name: string
  readonly createdAt: Date
  updatedAt: Date
}

export interface MemberRow {
  role: string
  readonly joinedAt: Date
  updatedAt: Date
}

/** What the account tables tell the organization tables once joined (`MemoryAccountStore({ cascade })`). */
export type MemoryAccountLookup = MemorySignInMethods

/** The actor's standing in an organization: its role, or why it may not act. */
export type ActorStanding = { readonly role: string } | 'not-found' | 'forbidden'

/**
 * The in-memory tables of organizations, memberships and invitations behind one queue: each operation
 * runs alone and commits synchronously, like a serializable transaction.
 */
export class MemoryOrganizationTables {
  readonly organizations = new Map<string, OrganizationRow>()
  readonly members = new Map<string, Map<string, MemberRow>>()
  readonly byAccount = new Map<string, Set<string>>()
  readonly invitations = new Map<string, NewInvitation>()
  readonly joinRequests = new Map<string, JoinRequest>()
  readonly queue = new SerialQueue()
  readonly roles: OrganizationRoles
  accounts: MemoryAccountLookup | undefined
  readonly #notices: RevocationNotices | undefined
  readonly #outbox: MemoryMailOutbox | undefined

  constructor(roles: OrganizationRoles, notices?: RevocationNotices, outbox?: MemoryMailOutbox) {
    this.roles = roles
    this.#notices = notices
    this.#outbox = outbox
  }

  requireRole(role: string): string {
    if (!this.roles.has(role)) throw invalidOrganizationInput('role is not one of the role catalogue')
    return role
  }

  /** The actor's role when it is a member holding `permission`. */
  standing(organizationId: string, actorAccountId: string, permission?: string): ActorStanding {
    const row = this.members.get(organizationId)?.get(actorAccountId)
    if (row === undefined) return 'not-found'
    if (permission !== undefined && !this.roles.allows(row.role, permission)) return 'forbidden'
    return { role: row.role }
  }

  ownerCount(organizationId: string): number {
    let owners = 0
    for (const row of this.members.get(organizationId)?.values() ?? [])
      if (row.role === OWNER_ROLE) owners += 1
    return owners
  }

  addMember(organizationId: string, accountId: string, role: string, now: Date): Membership {
    let members = this.members.get(organizationId)
    if (members === undefined) {
      members = new Map()
      this.members.set(organizationId, members)
    }
    const row: MemberRow = { role, joinedAt: now, updatedAt: now }
    members.set(accountId, row)
    let orgs = this.byAccount.get(accountId)
    if (orgs === undefined) {
      orgs = new Set()
      this.byAccount.set(accountId, orgs)
    }
    orgs.add(organizationId)
    return membershipOf(organizationId, accountId, row)
  }

  removeMember(organizationId: string, accountId: string): void {
    this.members.get(organizationId)?.delete(accountId)
    const orgs = this.byAccount.get(accountId)
    orgs?.delete(organizationId)
    if (orgs?.size === 0) this.byAccount.delete(accountId)
  }

  /** Removes the organization, its memberships, invitations and requests to join; the former members' ids. */
  dropOrganization(organizationId: string): string[] {
    const memberIds = [...(this.members.get(organizationId)?.keys() ?? [])]
    for (const accountId of memberIds) this.removeMember(organizationId, accountId)
    this.members.delete(organizationId)
    this.organizations.delete(organizationId)
    for (const [id, invitation] of this.invitations) {
      if (invitation.organizationId === organizationId) this.invitations.delete(id)
    }
    for (const [id, request] of this.joinRequests) {
      if (request.organizationId === organizationId) this.joinRequests.delete(id)
    }
    return memberIds
  }

  /** Tells every instance the accounts' memberships changed (in the queued step, before it resolves). */
  async announce(accountIds: readonly string[]): Promise<void> {
    for (const accountId of accountIds) await this.#notices?.publish({ kind: 'membership', accountId })
  }

  /** As `MemoryAccountTables.stageOutbox`: check first, write right after the change, never drop. */
  stageOutbox(entries: readonly OutboxEntry[]): () => void {
    if (entries.length === 0) return () => {}
    if (this.#outbox === undefined) {
      throw new ConfigurationError(
        'organizations.outbox_not_configured',
        'this MemoryOrganizationStore has no outbox: pass { outbox: MemoryMailOutbox } to write invitation mail',
      )
    }
    return this.#outbox.prepareWrite(entries)
  }
}

export function organizationOf(organizationId: string, row: OrganizationRow): Organization {
  return Object.freeze({
    organizationId,
    name: row.name,
    createdAt: new Date(row.createdAt.getTime()),
    updatedAt: new Date(row.updatedAt.getTime()),
  })
}

export function membershipOf(organizationId: string, accountId: string, row: MemberRow): Membership {
  return Object.freeze({
    organizationId,
    accountId,
    role: row.role,
    joinedAt: new Date(row.joinedAt.getTime()),
    updatedAt: new Date(row.updatedAt.getTime()),
  })
}

export function invitationOf(row: NewInvitation): Invitation {
  return Object.freeze({
    invitationId: row.invitationId,
    organizationId: row.organizationId,
    address: row.address,
    role: row.role,
    inviterAccountId: row.inviterAccountId,
    keyVersion: row.keyVersion,
    createdAt: new Date(row.createdAt.getTime()),
    expiresAt: new Date(row.expiresAt.getTime()),
  })
}
