// Organizations: memberships and their roles behind the tenant guard, invitations by email, the
// store ports with their memory implementation, and the resolver that fills the snapshot's tenants.
export type {
  ActiveOrganizationSessions,
  SetActiveOrganizationInput,
  SetActiveOrganizationOutcome,
} from './active-organization.js'
export {
  ACTIVE_ORGANIZATION_SNAPSHOT_ATTRIBUTE,
  activeOrganizationOf,
  sessionActiveOrganization,
  setActiveOrganization,
} from './active-organization.js'
export type { OrganizationErrorCode, OrganizationErrorOptions } from './errors.js'
export { OrganizationError, OrganizationErrorCodes } from './errors.js'
export type {
  AcceptRequest,
  InvitationLimit,
  InviteRequest,
  OrganizationInvitationsOptions,
  ResendRequest,
} from './invitations.js'
export { OrganizationInvitations, organizationRefusal } from './invitations.js'
export {
  defaultJoinRole,
  MAX_OWN_JOIN_REQUESTS,
  MAX_PENDING_JOIN_REQUESTS,
  validateDecideJoinRequest,
  validateListJoinRequests,
  validateRequestToJoin,
  validateWithdrawJoinRequest,
} from './join-request-input.js'
export type {
  DecideJoinRequestOutcome,
  DecideJoinRequestRequest,
  JoinDecision,
  JoinRequest,
  JoinRequestStore,
  ListJoinRequestsOutcome,
  ListJoinRequestsRequest,
  RequestToJoinOutcome,
  RequestToJoinRequest,
  WithdrawJoinRequestOutcome,
  WithdrawJoinRequestRequest,
} from './join-request-port.js'
export type { MemoryOrganizationStoreOptions } from './memory-store.js'
export { MemoryOrganizationStore } from './memory-store.js'
export type { InvitationStore, MembershipStore, OrganizationStore, OrganizationStores } from './port.js'
export type {
  AccountOrganization,
  Invitation,
  Membership,
  NewInvitation,
  Organization,
  WithOutbox,
} from './records.js'
export {
  validateAcceptInvitation,
  validateCreateOrganization,
  validateDeleteOrganization,
  validateIssueInvitation,
  validateLeave,
  validateListInvitations,
  validateListMembers,
  validateRemoveMember,
  validateRenameOrganization,
  validateResendInvitation,
  validateRevokeInvitation,
  validateSetRole,
} from './request-input.js'
export type {
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
export type { MembershipResolver, MembershipResolverOptions } from './resolver.js'
export { membershipResolver } from './resolver.js'
export type { OrganizationPermission, OrganizationRole } from './roles.js'
export {
  DEFAULT_ORGANIZATION_ROLES,
  OrganizationPermissions,
  OrganizationRoles,
  OWNER_ROLE,
} from './roles.js'
export {
  MAX_INVITATION_LIFETIME_MS,
  MAX_MEMBERS_PAGE,
  ORGANIZATION_ID_FORMAT,
  requireMemberAccountId,
  requireOrganizationId,
} from './validate.js'
