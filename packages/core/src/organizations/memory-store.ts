import type { MemoryAccountData } from '../accounts/memory-tables.js'
import type { DeleteAccountOutcome } from '../accounts/requests.js'
import type { MemoryMailOutbox } from '../mail/memory-outbox.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import { OrganizationError, OrganizationErrorCodes } from './errors.js'
import { defaultJoinRole } from './join-request-input.js'
import type {
  DecideJoinRequestOutcome,
  DecideJoinRequestRequest,
  JoinRequest,
  JoinRequestStore,
  ListJoinRequestsOutcome,
  ListJoinRequestsRequest,
  RequestToJoinOutcome,
  RequestToJoinRequest,
  WithdrawJoinRequestOutcome,
  WithdrawJoinRequestRequest,
} from './join-request-port.js'
import * as invitations from './memory-invitations.js'
import * as joinRequests from './memory-join-requests.js'
import {
  type MemoryAccountLookup,
  MemoryOrganizationTables,
  membershipOf,
  organizationOf,
} from './memory-tables.js'
import type { OrganizationStores } from './port.js'
import type { AccountOrganization, Membership, Organization } from './records.js'
import {
  validateCreateOrganization,
  validateDeleteOrganization,
  validateLeave,
  validateListMembers,
  validateRemoveMember,
  validateRenameOrganization,
  validateSetRole,
} from './request-input.js'
import type {
  AcceptInvitationOutcome,
  AcceptInvitationRequest,
  CreateOrganizationOutcome,
  CreateOrganizationRequest,
  DeleteOrganizationOutcome,
  DeleteOrganizationRequest,
  IssueInvitationOutcome,
  IssueInvitationRequest,
  LeaveOrganizationOutcome,
  LeaveOrganizationRequest,
  ListInvitationsOutcome,
  ListInvitationsRequest,
  ListMembersOutcome,
  ListMembersRequest,
  RemoveMemberOutcome,
  RemoveMemberRequest,
  RenameOrganizationOutcome,
  RenameOrganizationRequest,
  ResendInvitationOutcome,
  ResendInvitationRequest,
  RevokeInvitationOutcome,
  RevokeInvitationRequest,
  SetRoleOutcome,
  SetRoleRequest,
} from './requests.js'
import { OrganizationPermissions, OrganizationRoles, OWNER_ROLE } from './roles.js'
import { requireMemberAccountId, requireOrganizationId } from './validate.js'

export interface MemoryOrganizationStoreOptions {
  /** The role catalogue (default owner, admin, member). Every instance of a deployment uses the same. */
  readonly roles?: OrganizationRoles
  /** Where `membership` notices go: every removal, role change, join, leave and organization deletion. */
  readonly notices?: RevocationNotices
  /** Where invitation mail is written, in the issuing or resending step. */
  readonly outbox?: MemoryMailOutbox
  /**
   * The role an approved request to join gives (a role of the catalogue). Default `member`, or the
   * catalogue's lowest role when it has no `member`.
   */
  readonly joinRole?: string
}

/**
 * The in-memory organizations, memberships and invitations. Pass it to `MemoryAccountStore({ cascade:
 * [organizations] })`: it then checks that owners and accepting accounts exist and accepting accounts
 * hold the invited address verified, and an account's deletion removes its memberships in the same
 * step (refused, `last-owner`, while it is the only owner of an organization with other members; an
 * organization it was the only member of goes with it). For tests, development and one process.
 */
export class MemoryOrganizationStore implements OrganizationStores, JoinRequestStore, MemoryAccountData {
  readonly #tables: MemoryOrganizationTables
  readonly #joinRole: string

  constructor(options: MemoryOrganizationStoreOptions = {}) {
    const roles = options.roles ?? OrganizationRoles.defaults
    if (!(roles instanceof OrganizationRoles)) {
      throw new OrganizationError(OrganizationErrorCodes.invalidRoles, 'roles must be an OrganizationRoles')
    }
    this.#tables = new MemoryOrganizationTables(roles, options.notices, options.outbox)
    this.#joinRole = options.joinRole ?? defaultJoinRole(roles)
    if (!roles.has(this.#joinRole)) {
      throw new OrganizationError(
        OrganizationErrorCodes.invalidRoles,
        'joinRole must be a role of the catalogue',
      )
    }
  }

  joinAccountTables(accounts: MemoryAccountLookup): void {
    this.#tables.accounts = accounts
  }

  deleteAccountData(accountId: string): number {
    const tables = this.#tables
    const orgs = [...(tables.byAccount.get(accountId) ?? [])]
    for (const organizationId of orgs) {
      tables.removeMember(organizationId, accountId)
      if ((tables.members.get(organizationId)?.size ?? 0) === 0) tables.dropOrganization(organizationId)
    }
    for (const [id, invitation] of tables.invitations) {
      if (invitation.inviterAccountId === accountId) tables.invitations.delete(id)
    }
    for (const [id, request] of tables.joinRequests) {
      if (request.accountId === accountId) tables.joinRequests.delete(id)
    }
    return orgs.length
  }

  /** `last-owner` while the account is the only owner of an organization that has other members. */
  refuseDeletion(accountId: string): DeleteAccountOutcome | undefined {
    const tables = this.#tables
    const blocked: string[] = []
    for (const organizationId of tables.byAccount.get(accountId) ?? []) {
      const members = tables.members.get(organizationId)
      if (members?.get(accountId)?.role !== OWNER_ROLE) continue
      if (tables.ownerCount(organizationId) === 1 && members.size > 1) blocked.push(organizationId)
    }
    return blocked.length === 0
      ? undefined
      : { outcome: 'last-owner', organizationIds: Object.freeze(blocked.sort()) }
  }

  async createOrganization(request: CreateOrganizationRequest): Promise<CreateOrganizationOutcome> {
    const { organizationId, name, ownerAccountId, now } = validateCreateOrganization(request)
    const tables = this.#tables
    return tables.queue.run(async (): Promise<CreateOrganizationOutcome> => {
      if (tables.accounts !== undefined && !tables.accounts.hasAccount(ownerAccountId)) {
        return { outcome: 'account-not-found' }
      }
      if (tables.organizations.has(organizationId)) {
        throw new OrganizationError(
          OrganizationErrorCodes.duplicate,
          'an organization with this id is stored',
        )
      }
      const row = { name, createdAt: now, updatedAt: now }
      tables.organizations.set(organizationId, row)
      const membership = tables.addMember(organizationId, ownerAccountId, OWNER_ROLE, now)
      await tables.announce([ownerAccountId])
      return { outcome: 'created', organization: organizationOf(organizationId, row), membership }
    })
  }

  async getOrganization(organizationId: string): Promise<Organization | null> {
    const id = requireOrganizationId(organizationId)
    const row = this.#tables.organizations.get(id)
    return row === undefined ? null : organizationOf(id, row)
  }

  async organizationsOf(accountId: string): Promise<readonly AccountOrganization[]> {
    const id = requireMemberAccountId(accountId)
    const tables = this.#tables
    const list: AccountOrganization[] = []
    for (const organizationId of [...(tables.byAccount.get(id) ?? [])].sort()) {
      const org = tables.organizations.get(organizationId)
      const row = tables.members.get(organizationId)?.get(id)
      if (org === undefined || row === undefined) continue
      list.push(Object.freeze({ ...membershipOf(organizationId, id, row), organizationName: org.name }))
    }
    return Object.freeze(list)
  }

  async renameOrganization(request: RenameOrganizationRequest): Promise<RenameOrganizationOutcome> {
    const { organizationId, actorAccountId, name, now } = validateRenameOrganization(request)
    const tables = this.#tables
    return tables.queue.run((): RenameOrganizationOutcome => {
      const standing = tables.standing(organizationId, actorAccountId, OrganizationPermissions.rename)
      if (typeof standing === 'string') return { outcome: standing }
      const row = tables.organizations.get(organizationId)
      if (row === undefined) return { outcome: 'not-found' }
      row.name = name
      row.updatedAt = now
      return { outcome: 'renamed', organization: organizationOf(organizationId, row) }
    })
  }

  async deleteOrganization(request: DeleteOrganizationRequest): Promise<DeleteOrganizationOutcome> {
    const { organizationId, actorAccountId } = validateDeleteOrganization(request)
    const tables = this.#tables
    return tables.queue.run(async (): Promise<DeleteOrganizationOutcome> => {
      const standing = tables.standing(organizationId, actorAccountId, OrganizationPermissions.delete)
      if (typeof standing === 'string') return { outcome: standing }
      const memberAccountIds = tables.dropOrganization(organizationId).sort()
      await tables.announce(memberAccountIds)
      return { outcome: 'deleted', memberAccountIds: Object.freeze(memberAccountIds) }
    })
  }

  async membershipsOf(accountId: string): Promise<readonly Membership[]> {
    const id = requireMemberAccountId(accountId)
    const tables = this.#tables
    const list: Membership[] = []
    for (const organizationId of [...(tables.byAccount.get(id) ?? [])].sort()) {
      const row = tables.members.get(organizationId)?.get(id)
      if (row !== undefined) list.push(membershipOf(organizationId, id, row))
    }
    return Object.freeze(list)
  }

  async listMembers(request: ListMembersRequest): Promise<ListMembersOutcome> {
    const { organizationId, actorAccountId, limit, after } = validateListMembers(request)
    const tables = this.#tables
    if (typeof tables.standing(organizationId, actorAccountId) === 'string') return { outcome: 'not-found' }
    const members = [...(tables.members.get(organizationId) ?? [])]
      .filter(([accountId]) => after === undefined || accountId > after)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, limit)
      .map(([accountId, row]) => membershipOf(organizationId, accountId, row))
    return { outcome: 'listed', members: Object.freeze(members) }
  }

  async setRole(request: SetRoleRequest): Promise<SetRoleOutcome> {
    const { organizationId, actorAccountId, accountId, role, now } = validateSetRole(request)
    const tables = this.#tables
    tables.requireRole(role)
    return tables.queue.run(async (): Promise<SetRoleOutcome> => {
      const standing = tables.standing(organizationId, actorAccountId, OrganizationPermissions.manageMembers)
      if (typeof standing === 'string') return { outcome: standing }
      const row = tables.members.get(organizationId)?.get(accountId)
      if (row === undefined) return { outcome: 'not-found' }
      const { roles } = tables
      if (!roles.atOrBelow(standing.role, role) || !roles.atOrBelow(standing.role, row.role)) {
        return { outcome: 'rank-exceeded' }
      }
      if (row.role === OWNER_ROLE && role !== OWNER_ROLE && tables.ownerCount(organizationId) <= 1) {
        return { outcome: 'last-owner' }
      }
      row.role = role
      row.updatedAt = now
      await tables.announce([accountId])
      return { outcome: 'changed', membership: membershipOf(organizationId, accountId, row) }
    })
  }

  async removeMember(request: RemoveMemberRequest): Promise<RemoveMemberOutcome> {
    const { organizationId, actorAccountId, accountId, now } = validateRemoveMember(request)
    if (actorAccountId === accountId) {
      const left = await this.leave({ organizationId, accountId, now })
      return left.outcome === 'left' ? { outcome: 'removed' } : left
    }
    const tables = this.#tables
    return tables.queue.run(async (): Promise<RemoveMemberOutcome> => {
      const standing = tables.standing(organizationId, actorAccountId, OrganizationPermissions.manageMembers)
      if (typeof standing === 'string') return { outcome: standing }
      const row = tables.members.get(organizationId)?.get(accountId)
      if (row === undefined) return { outcome: 'not-found' }
      if (!tables.roles.atOrBelow(standing.role, row.role)) return { outcome: 'rank-exceeded' }
      if (row.role === OWNER_ROLE && tables.ownerCount(organizationId) <= 1) return { outcome: 'last-owner' }
      tables.removeMember(organizationId, accountId)
      await tables.announce([accountId])
      return { outcome: 'removed' }
    })
  }

  async leave(request: LeaveOrganizationRequest): Promise<LeaveOrganizationOutcome> {
    const { organizationId, accountId } = validateLeave(request)
    const tables = this.#tables
    return tables.queue.run(async (): Promise<LeaveOrganizationOutcome> => {
      const row = tables.members.get(organizationId)?.get(accountId)
      if (row === undefined) return { outcome: 'not-found' }
      if (row.role === OWNER_ROLE && tables.ownerCount(organizationId) <= 1) return { outcome: 'last-owner' }
      tables.removeMember(organizationId, accountId)
      await tables.announce([accountId])
      return { outcome: 'left' }
    })
  }

  issueInvitation(request: IssueInvitationRequest): Promise<IssueInvitationOutcome> {
    return invitations.issueInvitation(this.#tables, request)
  }

  acceptInvitation(request: AcceptInvitationRequest): Promise<AcceptInvitationOutcome> {
    return invitations.acceptInvitation(this.#tables, request)
  }

  revokeInvitation(request: RevokeInvitationRequest): Promise<RevokeInvitationOutcome> {
    return invitations.revokeInvitation(this.#tables, request)
  }

  resendInvitation(request: ResendInvitationRequest): Promise<ResendInvitationOutcome> {
    return invitations.resendInvitation(this.#tables, request)
  }

  listInvitations(request: ListInvitationsRequest): Promise<ListInvitationsOutcome> {
    return invitations.listInvitations(this.#tables, request)
  }

  requestToJoin(request: RequestToJoinRequest): Promise<RequestToJoinOutcome> {
    return joinRequests.requestToJoin(this.#tables, request)
  }

  listJoinRequests(request: ListJoinRequestsRequest): Promise<ListJoinRequestsOutcome> {
    return joinRequests.listJoinRequests(this.#tables, request)
  }

  joinRequestsOf(accountId: string): Promise<readonly JoinRequest[]> {
    return joinRequests.joinRequestsOf(this.#tables, accountId)
  }

  decideJoinRequest(request: DecideJoinRequestRequest): Promise<DecideJoinRequestOutcome> {
    return joinRequests.decideJoinRequest(this.#tables, this.#joinRole, request)
  }

  withdrawJoinRequest(request: WithdrawJoinRequestRequest): Promise<WithdrawJoinRequestOutcome> {
    return joinRequests.withdrawJoinRequest(this.#tables, request)
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    const tables = this.#tables
    return `MemoryOrganizationStore { organizations: ${tables.organizations.size}, invitations: ${tables.invitations.size} }`
  }
}
