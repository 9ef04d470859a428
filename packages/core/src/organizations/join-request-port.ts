import type { Membership } from './records.js'

// Requests to join an organization: what the `automatic-suggestion` enrollment mode of a verified domain
// leads to. A person holding a verified address at a domain the organization holds verified in that
// mode asks; a manager approves or declines. Only pending requests are stored: a decision removes the
// request, and an approval writes the membership (with the store's join role, never one the request
// names) in the same transaction.

/** A pending request to join, as stored and listed. */
export interface JoinRequest {
  /** A flow id (`generateFlowId`): random, URL-safe, 22 to 64 of A-Z a-z 0-9 - _. */
  readonly requestId: string
  readonly organizationId: string
  /** The account asking (the signed-in person, from the verified principal). */
  readonly accountId: string
  /**
   * The normalized verified address the request rests on (its domain is the organization's verified
   * domain). The store checks, in the request's transaction, that the account holds it verified.
   */
  readonly address: string
  readonly createdAt: Date
}

export interface RequestToJoinRequest {
  readonly joinRequest: JoinRequest
  /** Refused (`limit-reached`) while the organization holds this many pending requests (1 to 10000). */
  readonly maxPendingPerOrganization: number
}

/**
 * `requested`: stored. `pending`: the account already has a pending request to the organization; that
 * one is answered (the new one is not stored). `already-member`: the account belongs to it.
 * `not-found`: no such organization. `address-mismatch`: the account does not hold the address
 * verified. `limit-reached`: the organization holds `maxPendingPerOrganization` pending requests.
 */
export type RequestToJoinOutcome =
  | { readonly outcome: 'requested'; readonly joinRequest: JoinRequest }
  | { readonly outcome: 'pending'; readonly joinRequest: JoinRequest }
  | { readonly outcome: 'already-member' }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'address-mismatch' }
  | { readonly outcome: 'limit-reached' }

export interface ListJoinRequestsRequest {
  readonly organizationId: string
  /** A member holding `organization.invitations.manage`. */
  readonly actorAccountId: string
  /** 1 to 1000; default 100. */
  readonly limit?: number | undefined
}

export type ListJoinRequestsOutcome =
  | { readonly outcome: 'listed'; readonly joinRequests: readonly JoinRequest[] }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'forbidden' }

export type JoinDecision = 'approve' | 'decline'

export interface DecideJoinRequestRequest {
  readonly organizationId: string
  readonly requestId: string
  /** The manager deciding: a member holding `organization.invitations.manage`, from the verified principal. */
  readonly actorAccountId: string
  readonly decision: JoinDecision
  readonly now: Date
}

/**
 * `approved`: the request is gone and the membership written, in one transaction. `declined`: the
 * request is gone. `not-found`: no such organization, the actor is not a member, or no such pending
 * request of this organization (decided already, withdrawn, or another organization's). `forbidden`:
 * the actor's role lacks the permission. `rank-exceeded`: the join role ranks above the actor's.
 * `already-member`: the account joined meanwhile (an invitation); the request is gone, nothing else
 * changed.
 */
export type DecideJoinRequestOutcome =
  | { readonly outcome: 'approved'; readonly joinRequest: JoinRequest; readonly membership: Membership }
  | { readonly outcome: 'declined'; readonly joinRequest: JoinRequest }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'forbidden' }
  | { readonly outcome: 'rank-exceeded' }
  | { readonly outcome: 'already-member' }

export interface WithdrawJoinRequestRequest {
  readonly organizationId: string
  readonly requestId: string
  /** The account that asked: another account's request is not found. */
  readonly accountId: string
}

export type WithdrawJoinRequestOutcome = { readonly outcome: 'withdrawn' } | { readonly outcome: 'not-found' }

/**
 * The durable boundary of requests to join, over the same schema as the organization stores (an
 * approval writes the membership in its transaction). Every change of an organization's requests runs
 * under the organization's lock, so with any number of instances: one pending request per organization
 * and account; an approval racing a decline, or two approvals, decide once (membership iff approved);
 * the pending limit holds. Deleting the account or the organization removes its requests with it.
 */
export interface JoinRequestStore {
  requestToJoin(request: RequestToJoinRequest): Promise<RequestToJoinOutcome>
  /** The organization's pending requests newest first, at most `limit`; needs `organization.invitations.manage`. */
  listJoinRequests(request: ListJoinRequestsRequest): Promise<ListJoinRequestsOutcome>
  /** The account's own pending requests, newest first (at most 100). */
  joinRequestsOf(accountId: string): Promise<readonly JoinRequest[]>
  decideJoinRequest(request: DecideJoinRequestRequest): Promise<DecideJoinRequestOutcome>
  withdrawJoinRequest(request: WithdrawJoinRequestRequest): Promise<WithdrawJoinRequestOutcome>
}
