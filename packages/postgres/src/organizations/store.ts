import type {
  AcceptInvitationOutcome,
  AcceptInvitationRequest,
  AccountOrganization,
  CreateOrganizationOutcome,
  CreateOrganizationRequest,
  DecideJoinRequestOutcome,
  DecideJoinRequestRequest,
  DeleteOrganizationOutcome,
  DeleteOrganizationRequest,
  IssueInvitationOutcome,
  IssueInvitationRequest,
  JoinRequest,
  JoinRequestStore,
  LeaveOrganizationOutcome,
  LeaveOrganizationRequest,
  ListInvitationsOutcome,
  ListInvitationsRequest,
  ListJoinRequestsOutcome,
  ListJoinRequestsRequest,
  ListMembersOutcome,
  ListMembersRequest,
  Membership,
  Organization,
  OrganizationRoles,
  OrganizationStores,
  RemoveMemberOutcome,
  RemoveMemberRequest,
  RenameOrganizationOutcome,
  RenameOrganizationRequest,
  RequestToJoinOutcome,
  RequestToJoinRequest,
  ResendInvitationOutcome,
  ResendInvitationRequest,
  RevokeInvitationOutcome,
  RevokeInvitationRequest,
  SetRoleOutcome,
  SetRoleRequest,
  WithdrawJoinRequestOutcome,
  WithdrawJoinRequestRequest,
} from '@portcullis/core/organizations'
import {
  defaultJoinRole,
  OrganizationError,
  OrganizationErrorCodes,
  requireMemberAccountId,
  requireOrganizationId,
} from '@portcullis/core/organizations'
import type { LocalStoreClient } from '../local-accounts/client.js'
import * as invitations from './invitations.js'
import * as joinRequests from './join-requests.js'
import * as memberships from './memberships.js'
import * as organizations from './organizations.js'
import { type OrganizationContext, organizationContext } from './shared.js'

export interface PostgresOrganizationStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: LocalStoreClient
  /** The role catalogue (default owner, admin, member); every instance of a deployment uses the same. */
  readonly roles?: OrganizationRoles
  /**
   * The role an approved request to join gives (a role of the catalogue). Default `member`, or the
   * catalogue's lowest role when it has no `member`.
   */
  readonly joinRole?: string
}

/**
 * The durable organizations, memberships and invitations (`portcullis_organizations`,
 * `portcullis_memberships`, `portcullis_invitations`). Every change to an organization's memberships or
 * invitations is one transaction that locks the organization's row first (`SELECT ... FOR UPDATE`), so
 * the actor's rank and the owner count are read under the lock that makes the change, on any number of
 * instances; removals, role changes, joins and leaves send `membership` notices in their transaction.
 * `PostgresAccountStore.deleteAccount` removes an account's memberships in its own transaction. Requests
 * to join (`portcullis_join_requests`) are decided under the same lock; an approval writes the membership
 * in the decision's transaction, and they go with their account and organization (on delete cascade).
 */
export class PostgresOrganizationStore implements OrganizationStores, JoinRequestStore {
  readonly #context: OrganizationContext
  readonly #joinRole: string

  constructor(options: PostgresOrganizationStoreOptions) {
    this.#context = organizationContext(options)
    this.#joinRole = options.joinRole ?? defaultJoinRole(this.#context.roles)
    if (!this.#context.roles.has(this.#joinRole)) {
      throw new OrganizationError(
        OrganizationErrorCodes.invalidRoles,
        'joinRole must be a role of the catalogue',
      )
    }
  }

  createOrganization(request: CreateOrganizationRequest): Promise<CreateOrganizationOutcome> {
    return organizations.createOrganization(this.#context, request)
  }

  async getOrganization(organizationId: string): Promise<Organization | null> {
    return organizations.getOrganization(this.#context, requireOrganizationId(organizationId))
  }

  async organizationsOf(accountId: string): Promise<readonly AccountOrganization[]> {
    return organizations.organizationsOf(this.#context, requireMemberAccountId(accountId))
  }

  renameOrganization(request: RenameOrganizationRequest): Promise<RenameOrganizationOutcome> {
    return organizations.renameOrganization(this.#context, request)
  }

  deleteOrganization(request: DeleteOrganizationRequest): Promise<DeleteOrganizationOutcome> {
    return organizations.deleteOrganization(this.#context, request)
  }

  async membershipsOf(accountId: string): Promise<readonly Membership[]> {
    return memberships.membershipsOf(this.#context, requireMemberAccountId(accountId))
  }

  listMembers(request: ListMembersRequest): Promise<ListMembersOutcome> {
    return memberships.listMembers(this.#context, request)
  }

  setRole(request: SetRoleRequest): Promise<SetRoleOutcome> {
    return memberships.setRole(this.#context, request)
  }

  removeMember(request: RemoveMemberRequest): Promise<RemoveMemberOutcome> {
    return memberships.removeMember(this.#context, request)
  }

  leave(request: LeaveOrganizationRequest): Promise<LeaveOrganizationOutcome> {
    return memberships.leave(this.#context, request)
  }

  issueInvitation(request: IssueInvitationRequest): Promise<IssueInvitationOutcome> {
    return invitations.issueInvitation(this.#context, request)
  }

  acceptInvitation(request: AcceptInvitationRequest): Promise<AcceptInvitationOutcome> {
    return invitations.acceptInvitation(this.#context, request)
  }

  revokeInvitation(request: RevokeInvitationRequest): Promise<RevokeInvitationOutcome> {
    return invitations.revokeInvitation(this.#context, request)
  }

  resendInvitation(request: ResendInvitationRequest): Promise<ResendInvitationOutcome> {
    return invitations.resendInvitation(this.#context, request)
  }

  listInvitations(request: ListInvitationsRequest): Promise<ListInvitationsOutcome> {
    return invitations.listInvitations(this.#context, request)
  }

  requestToJoin(request: RequestToJoinRequest): Promise<RequestToJoinOutcome> {
    return joinRequests.requestToJoin(this.#context, request)
  }

  listJoinRequests(request: ListJoinRequestsRequest): Promise<ListJoinRequestsOutcome> {
    return joinRequests.listJoinRequests(this.#context, request)
  }

  async joinRequestsOf(accountId: string): Promise<readonly JoinRequest[]> {
    return joinRequests.joinRequestsOf(this.#context, requireMemberAccountId(accountId))
  }

  decideJoinRequest(request: DecideJoinRequestRequest): Promise<DecideJoinRequestOutcome> {
    return joinRequests.decideJoinRequest(this.#context, this.#joinRole, request)
  }

  withdrawJoinRequest(request: WithdrawJoinRequestRequest): Promise<WithdrawJoinRequestOutcome> {
    return joinRequests.withdrawJoinRequest(this.#context, request)
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresOrganizationStore {}'
  }
}
