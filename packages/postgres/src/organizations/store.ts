import type {
  AcceptInvitationOutcome,
  AcceptInvitationRequest,
  AccountOrganization,
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
  Membership,
  Organization,
  OrganizationRoles,
  OrganizationStores,
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
} from '@portcullis/core/organizations'
import { requireMemberAccountId, requireOrganizationId } from '@portcullis/core/organizations'
import type { LocalStoreClient } from '../local-accounts/client.js'
import * as invitations from './invitations.js'
import * as memberships from './memberships.js'
import * as organizations from './organizations.js'
import { type OrganizationContext, organizationContext } from './shared.js'

export interface PostgresOrganizationStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: LocalStoreClient
  /** The role catalogue (default owner, admin, member); every instance of a deployment uses the same. */
  readonly roles?: OrganizationRoles
}

/**
 * The durable organizations, memberships and invitations (`portcullis_organizations`,
 * `portcullis_memberships`, `portcullis_invitations`). Every change to an organization's memberships or
 * invitations is one transaction that locks the organization's row first (`SELECT ... FOR UPDATE`), so
 * the actor's rank and the owner count are read under the lock that makes the change, on any number of
 * instances; removals, role changes, joins and leaves send `membership` notices in their transaction.
 * `PostgresAccountStore.deleteAccount` removes an account's memberships in its own transaction.
 */
export class PostgresOrganizationStore implements OrganizationStores {
  readonly #context: OrganizationContext

  constructor(options: PostgresOrganizationStoreOptions) {
    this.#context = organizationContext(options)
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

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresOrganizationStore {}'
  }
}
