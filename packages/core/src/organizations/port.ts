import type { AccountOrganization, Membership, Organization } from './records.js'
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

/**
 * Organizations themselves. Creating one makes its first owner in the same transaction; deleting one
 * removes its memberships and invitations with it and tells every instance (a `membership` notice per
 * member).
 */
export interface OrganizationStore {
  /** A stored `organizationId` is `organizations.duplicate`. */
  createOrganization(request: CreateOrganizationRequest): Promise<CreateOrganizationOutcome>
  getOrganization(organizationId: string): Promise<Organization | null>
  /** The organizations the account belongs to, with its role in each, by organization id. */
  organizationsOf(accountId: string): Promise<readonly AccountOrganization[]>
  /** Needs `organization.rename`. */
  renameOrganization(request: RenameOrganizationRequest): Promise<RenameOrganizationOutcome>
  /** Needs `organization.delete`. */
  deleteOrganization(request: DeleteOrganizationRequest): Promise<DeleteOrganizationOutcome>
}

/**
 * Memberships and their roles. Every change runs under the organization's lock, so the invariants hold
 * with any number of instances racing: an organization always keeps at least one owner (its last owner
 * can't leave, be demoted or be removed); an actor grants, and acts on members holding, only roles at or
 * below its own; and each removal or role change publishes a `membership` revocation notice in its
 * transaction, so every instance evicts what it cached of that account.
 */
export interface MembershipStore {
  /**
   * The account's memberships, by organization id: what `membershipResolver` reads once per request
   * (uncached). One indexed read; keep it cheap.
   */
  membershipsOf(accountId: string): Promise<readonly Membership[]>
  /** The organization's members by account id; the actor must be one of them. */
  listMembers(request: ListMembersRequest): Promise<ListMembersOutcome>
  /** Needs `organization.members.manage`; the member's current and new role at or below the actor's. */
  setRole(request: SetRoleRequest): Promise<SetRoleOutcome>
  /**
   * Needs `organization.members.manage` and a member ranked at or below the actor. An actor removing
   * itself is `leave`.
   */
  removeMember(request: RemoveMemberRequest): Promise<RemoveMemberOutcome>
  leave(request: LeaveOrganizationRequest): Promise<LeaveOrganizationOutcome>
}

/**
 * Invitations by email. Only the HMAC digest of a code is stored (`CodeKeyRing`); an invitation is
 * bound to its normalized address and accepted only by an account holding that address verified.
 * Accepting is atomic: two accepts racing, or an accept racing a revoke, give one membership or none.
 * Issue and resend write their `outbox` entries in the same transaction.
 */
export interface InvitationStore {
  /** Needs `organization.invitations.manage` and a role at or below the inviter's. */
  issueInvitation(request: IssueInvitationRequest): Promise<IssueInvitationOutcome>
  acceptInvitation(request: AcceptInvitationRequest): Promise<AcceptInvitationOutcome>
  revokeInvitation(request: RevokeInvitationRequest): Promise<RevokeInvitationOutcome>
  /** A new code and lifetime for a pending invitation; the old code stops working. */
  resendInvitation(request: ResendInvitationRequest): Promise<ResendInvitationOutcome>
  /** The pending, unexpired invitations, newest first; needs `organization.invitations.manage`. */
  listInvitations(request: ListInvitationsRequest): Promise<ListInvitationsOutcome>
}

/** The three ports over one schema, as the memory and Postgres implementations offer them. */
export interface OrganizationStores extends OrganizationStore, MembershipStore, InvitationStore {}
