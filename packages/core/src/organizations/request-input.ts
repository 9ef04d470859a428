import type {
  AcceptInvitationRequest,
  CreateOrganizationRequest,
  DeleteOrganizationRequest,
  IssueInvitationRequest,
  LeaveOrganizationRequest,
  ListInvitationsRequest,
  ListMembersRequest,
  RemoveMemberRequest,
  RenameOrganizationRequest,
  ResendInvitationRequest,
  RevokeInvitationRequest,
  SetRoleRequest,
} from './requests.js'
import {
  fieldsOf,
  requireCandidates,
  requireDigest,
  requireExpiry,
  requireInvitationId,
  requireKeyVersion,
  requireLimit,
  requireMemberAccountId,
  requireNewInvitation,
  requireNow,
  requireOrganizationId,
  requireOrganizationName,
  requireOutbox,
  requireRoleName,
} from './validate.js'

// Validated, frozen copies of every request of the organization ports (memory and Postgres share them).

type Valid<T> = { readonly [K in keyof T]-?: Exclude<T[K], undefined> }

/** The organization a member acts in and the acting member: what every request by a member names. */
function actorIn(fields: ReturnType<typeof fieldsOf>): { organizationId: string; actorAccountId: string } {
  return {
    organizationId: requireOrganizationId(fields.organizationId),
    actorAccountId: requireMemberAccountId(fields.actorAccountId, 'actorAccountId'),
  }
}

/** A member's request that names nothing else: deleting the organization, listing its invitations. */
function validateActorAt(request: unknown): Valid<DeleteOrganizationRequest & ListInvitationsRequest> {
  const fields = fieldsOf(request)
  return Object.freeze({ ...actorIn(fields), now: requireNow(fields.now) })
}

export function validateCreateOrganization(request: unknown): Valid<CreateOrganizationRequest> {
  const fields = fieldsOf(request)
  return Object.freeze({
    organizationId: requireOrganizationId(fields.organizationId),
    name: requireOrganizationName(fields.name),
    ownerAccountId: requireMemberAccountId(fields.ownerAccountId, 'ownerAccountId'),
    now: requireNow(fields.now),
  })
}

export function validateRenameOrganization(request: unknown): Valid<RenameOrganizationRequest> {
  const fields = fieldsOf(request)
  return Object.freeze({
    ...actorIn(fields),
    name: requireOrganizationName(fields.name),
    now: requireNow(fields.now),
  })
}

export function validateDeleteOrganization(request: unknown): Valid<DeleteOrganizationRequest> {
  return validateActorAt(request)
}

export function validateListMembers(
  request: unknown,
): Omit<Valid<ListMembersRequest>, 'after'> & { readonly after: string | undefined } {
  const fields = fieldsOf(request)
  return Object.freeze({
    ...actorIn(fields),
    limit: requireLimit(fields.limit),
    after: fields.after === undefined ? undefined : requireMemberAccountId(fields.after, 'after'),
  })
}

export function validateSetRole(request: unknown): Valid<SetRoleRequest> {
  const fields = fieldsOf(request)
  return Object.freeze({
    ...actorIn(fields),
    accountId: requireMemberAccountId(fields.accountId),
    role: requireRoleName(fields.role),
    now: requireNow(fields.now),
  })
}

export function validateRemoveMember(request: unknown): Valid<RemoveMemberRequest> {
  const fields = fieldsOf(request)
  return Object.freeze({
    ...actorIn(fields),
    accountId: requireMemberAccountId(fields.accountId),
    now: requireNow(fields.now),
  })
}

export function validateLeave(request: unknown): Valid<LeaveOrganizationRequest> {
  const fields = fieldsOf(request)
  return Object.freeze({
    organizationId: requireOrganizationId(fields.organizationId),
    accountId: requireMemberAccountId(fields.accountId),
    now: requireNow(fields.now),
  })
}

export function validateIssueInvitation(request: unknown): Valid<IssueInvitationRequest> {
  const fields = fieldsOf(request)
  return Object.freeze({
    invitation: requireNewInvitation(fields.invitation),
    now: requireNow(fields.now),
    outbox: requireOutbox(fields.outbox),
  })
}

export function validateAcceptInvitation(request: unknown): Valid<AcceptInvitationRequest> {
  const fields = fieldsOf(request)
  return Object.freeze({
    invitationId: requireInvitationId(fields.invitationId),
    candidates: requireCandidates(fields.candidates),
    accountId: requireMemberAccountId(fields.accountId),
    now: requireNow(fields.now),
  })
}

export function validateRevokeInvitation(request: unknown): Valid<RevokeInvitationRequest> {
  const fields = fieldsOf(request)
  return Object.freeze({
    ...actorIn(fields),
    invitationId: requireInvitationId(fields.invitationId),
    now: requireNow(fields.now),
  })
}

export function validateResendInvitation(request: unknown): Valid<ResendInvitationRequest> {
  const fields = fieldsOf(request)
  const now = requireNow(fields.now)
  return Object.freeze({
    ...actorIn(fields),
    invitationId: requireInvitationId(fields.invitationId),
    digest: requireDigest(fields.digest),
    keyVersion: requireKeyVersion(fields.keyVersion),
    expiresAt: requireExpiry(fields.expiresAt, now),
    now,
    outbox: requireOutbox(fields.outbox),
  })
}

export function validateListInvitations(request: unknown): Valid<ListInvitationsRequest> {
  return validateActorAt(request)
}
