import type { CodeCandidate } from '../codes/port.js'
import type { Invitation, Membership, NewInvitation, Organization, WithOutbox } from './records.js'

// Requests and outcomes of the organization ports. An actor is always named by the caller from the
// verified principal, never from the request body; every change checks the actor's own membership
// under the store's lock. `not-found` is the answer both for "no such organization" and "the actor is
// not a member of it", so ids cannot be probed.

export interface CreateOrganizationRequest {
  readonly organizationId: string
  readonly name: string
  /** The account that becomes the organization's first owner (it must exist). */
  readonly ownerAccountId: string
  readonly now: Date
}

export type CreateOrganizationOutcome =
  | { readonly outcome: 'created'; readonly organization: Organization; readonly membership: Membership }
  | { readonly outcome: 'account-not-found' }

export interface RenameOrganizationRequest {
  readonly organizationId: string
  readonly actorAccountId: string
  readonly name: string
  readonly now: Date
}

export type RenameOrganizationOutcome =
  | { readonly outcome: 'renamed'; readonly organization: Organization }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'forbidden' }

export interface DeleteOrganizationRequest {
  readonly organizationId: string
  readonly actorAccountId: string
  readonly now: Date
}

export type DeleteOrganizationOutcome =
  | { readonly outcome: 'deleted'; readonly memberAccountIds: readonly string[] }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'forbidden' }

export interface ListMembersRequest {
  readonly organizationId: string
  readonly actorAccountId: string
  /** 1 to 1000; default 100. */
  readonly limit?: number | undefined
  /** The last account id of the previous page: members are listed by account id. */
  readonly after?: string | undefined
}

export type ListMembersOutcome =
  | { readonly outcome: 'listed'; readonly members: readonly Membership[] }
  | { readonly outcome: 'not-found' }

export interface SetRoleRequest {
  readonly organizationId: string
  readonly actorAccountId: string
  readonly accountId: string
  /** A role of the store's catalogue; an unknown one is `organizations.invalid_input`. */
  readonly role: string
  readonly now: Date
}

/**
 * `rank-exceeded`: the new role or the member's current role ranks above the actor's. `last-owner`:
 * the member is the organization's only owner and the new role is not owner.
 */
export type SetRoleOutcome =
  | { readonly outcome: 'changed'; readonly membership: Membership }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'forbidden' }
  | { readonly outcome: 'rank-exceeded' }
  | { readonly outcome: 'last-owner' }

export interface RemoveMemberRequest {
  readonly organizationId: string
  readonly actorAccountId: string
  readonly accountId: string
  readonly now: Date
}

export type RemoveMemberOutcome =
  | { readonly outcome: 'removed' }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'forbidden' }
  | { readonly outcome: 'rank-exceeded' }
  | { readonly outcome: 'last-owner' }

export interface LeaveOrganizationRequest {
  readonly organizationId: string
  readonly accountId: string
  readonly now: Date
}

export type LeaveOrganizationOutcome =
  | { readonly outcome: 'left' }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'last-owner' }

export interface IssueInvitationRequest extends WithOutbox {
  /** Its `inviterAccountId` is the actor: a member with the invite permission, ranked at or above `role`. */
  readonly invitation: NewInvitation
  readonly now: Date
}

export type IssueInvitationOutcome =
  | { readonly outcome: 'issued'; readonly invitation: Invitation }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'forbidden' }
  | { readonly outcome: 'rank-exceeded' }

export interface AcceptInvitationRequest {
  readonly invitationId: string
  /** The presented code's digests under every key version held (`CodeKeyRing.candidates`). */
  readonly candidates: readonly CodeCandidate[]
  /** The signed-in account accepting; it must hold the invitation's address, verified. */
  readonly accountId: string
  readonly now: Date
}

/**
 * `not-found`: unknown, revoked, already accepted, or a wrong code (a wrong code burns nothing).
 * `address-mismatch`: the account holds no verified address equal to the invitation's (it stays
 * pending). `already-member`: the account belonged to the organization; the invitation is spent.
 */
export type AcceptInvitationOutcome =
  | { readonly outcome: 'accepted'; readonly membership: Membership }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'expired' }
  | { readonly outcome: 'address-mismatch' }
  | { readonly outcome: 'already-member' }

export interface RevokeInvitationRequest {
  readonly organizationId: string
  readonly invitationId: string
  readonly actorAccountId: string
  readonly now: Date
}

export type RevokeInvitationOutcome =
  | { readonly outcome: 'revoked' }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'forbidden' }
  | { readonly outcome: 'rank-exceeded' }

export interface ResendInvitationRequest extends WithOutbox {
  readonly organizationId: string
  readonly invitationId: string
  readonly actorAccountId: string
  /** The new code's digest: the previous code stops working. */
  readonly digest: string
  readonly keyVersion: number
  readonly expiresAt: Date
  readonly now: Date
}

export type ResendInvitationOutcome =
  | { readonly outcome: 'resent'; readonly invitation: Invitation }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'forbidden' }
  | { readonly outcome: 'rank-exceeded' }

export interface ListInvitationsRequest {
  readonly organizationId: string
  readonly actorAccountId: string
  readonly now: Date
}

export type ListInvitationsOutcome =
  | { readonly outcome: 'listed'; readonly invitations: readonly Invitation[] }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'forbidden' }
