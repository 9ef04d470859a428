import { isNormalizedEmailAddress } from '../accounts/email-address.js'
import { invalidOrganizationInput } from './errors.js'
import type {
  DecideJoinRequestRequest,
  JoinRequest,
  ListJoinRequestsRequest,
  RequestToJoinRequest,
  WithdrawJoinRequestRequest,
} from './join-request-port.js'
import {
  fieldsOf,
  requireInvitationId,
  requireLimit,
  requireMemberAccountId,
  requireNow,
  requireOrganizationId,
} from './validate.js'

// Validated, frozen copies of the join-request port's requests (memory and Postgres share them).

/** The most pending requests an organization may be configured to hold. */
export const MAX_PENDING_JOIN_REQUESTS = 10_000
/** How many of an account's own pending requests `joinRequestsOf` answers. */
export const MAX_OWN_JOIN_REQUESTS = 100

export function requireJoinRequest(value: unknown): JoinRequest {
  const fields = fieldsOf(value, 'joinRequest')
  if (!isNormalizedEmailAddress(fields.address)) {
    throw invalidOrganizationInput('joinRequest.address must be a normalized email address')
  }
  return Object.freeze({
    requestId: requireInvitationId(fields.requestId, 'joinRequest.requestId'),
    organizationId: requireOrganizationId(fields.organizationId, 'joinRequest.organizationId'),
    accountId: requireMemberAccountId(fields.accountId, 'joinRequest.accountId'),
    address: fields.address,
    createdAt: requireNow(fields.createdAt, 'joinRequest.createdAt'),
  })
}

export function validateRequestToJoin(request: unknown): Required<RequestToJoinRequest> {
  const fields = fieldsOf(request)
  const max = fields.maxPendingPerOrganization
  if (!Number.isInteger(max) || (max as number) < 1 || (max as number) > MAX_PENDING_JOIN_REQUESTS) {
    throw invalidOrganizationInput(
      `maxPendingPerOrganization must be an integer from 1 to ${MAX_PENDING_JOIN_REQUESTS}`,
    )
  }
  return Object.freeze({
    joinRequest: requireJoinRequest(fields.joinRequest),
    maxPendingPerOrganization: max as number,
  })
}

export function validateListJoinRequests(request: unknown): {
  readonly organizationId: string
  readonly actorAccountId: string
  readonly limit: number
} {
  const fields = fieldsOf(request) as Readonly<Partial<Record<keyof ListJoinRequestsRequest, unknown>>>
  return Object.freeze({
    organizationId: requireOrganizationId(fields.organizationId),
    actorAccountId: requireMemberAccountId(fields.actorAccountId, 'actorAccountId'),
    limit: requireLimit(fields.limit),
  })
}

export function validateDecideJoinRequest(request: unknown): DecideJoinRequestRequest {
  const fields = fieldsOf(request)
  if (fields.decision !== 'approve' && fields.decision !== 'decline') {
    throw invalidOrganizationInput('decision must be approve or decline')
  }
  return Object.freeze({
    organizationId: requireOrganizationId(fields.organizationId),
    requestId: requireInvitationId(fields.requestId, 'requestId'),
    actorAccountId: requireMemberAccountId(fields.actorAccountId, 'actorAccountId'),
    decision: fields.decision,
    now: requireNow(fields.now),
  })
}

export function validateWithdrawJoinRequest(request: unknown): WithdrawJoinRequestRequest {
  const fields = fieldsOf(request)
  return Object.freeze({
    organizationId: requireOrganizationId(fields.organizationId),
    requestId: requireInvitationId(fields.requestId, 'requestId'),
    accountId: requireMemberAccountId(fields.accountId),
  })
}

/** The role an approved request's membership gets: `member` when the catalogue has it, else its lowest. */
export function defaultJoinRole(roles: { readonly roles: readonly { readonly name: string }[] }): string {
  const names = roles.roles.map((role) => role.name)
  return names.includes('member') ? 'member' : (names.at(-1) as string)
}
