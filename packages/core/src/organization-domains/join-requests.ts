import type { EmailAddresses } from '../accounts/port.js'
import { type CodeRandomSource, generateFlowId } from '../codes/generate.js'
import { integerBetween, type OptionsShape, readOptions } from '../errors/options.js'
import {
  emitSecurityEvent,
  type SecurityEvent,
  type SecurityEventSink,
  type SecurityEventSinkErrorHandler,
} from '../local-accounts/security-events.js'
import { organizationRefusal } from '../organizations/invitations.js'
import { MAX_PENDING_JOIN_REQUESTS } from '../organizations/join-request-input.js'
import type { JoinRequest, JoinRequestStore } from '../organizations/join-request-port.js'
import type { Membership } from '../organizations/records.js'
import {
  requireInvitationId,
  requireMemberAccountId,
  requireOrganizationId,
} from '../organizations/validate.js'
import type { OrganizationDomains } from './organization-domains.js'

export interface OrganizationJoinRequestsOptions {
  /** Where the organizations offered to a person are read (`enrollmentFor`). */
  readonly domains: OrganizationDomains
  /** The join-request store (`MemoryOrganizationStore` or `PostgresOrganizationStore`). */
  readonly store: JoinRequestStore
  /** Where the asking account's verified addresses are read (never from the request). */
  readonly accounts: Pick<EmailAddresses, 'listEmailAddresses'>
  /** The most pending requests one organization holds (1 to 10000). Default 100. */
  readonly maxPendingPerOrganization?: number
  /** Receives `organization.join_requested`, `organization.join_approved` and `organization.join_declined`. */
  readonly events?: SecurityEventSink
  readonly onSinkError?: SecurityEventSinkErrorHandler
  readonly clock?: () => number
  readonly randomBytes?: CodeRandomSource
}

const OPTIONS: OptionsShape<OrganizationJoinRequestsOptions> = {
  domains: { required: true, kind: 'object' },
  store: { required: true, kind: 'object' },
  accounts: { required: true, kind: 'object' },
  maxPendingPerOrganization: { kind: 'number', check: integerBetween(1, MAX_PENDING_JOIN_REQUESTS) },
  events: { kind: 'function' },
  onSinkError: { kind: 'function' },
  clock: { kind: 'function' },
  randomBytes: { kind: 'function' },
}

export interface DecideRequest {
  readonly organizationId: string
  readonly requestId: string
  /** The manager deciding, from the verified principal; its role is read by the store under its lock. */
  readonly actorAccountId: string
}

/**
 * The `automatic-suggestion` enrollment mode, end to end. `ask` lets a signed-in person ask to join an
 * organization that holds, verified and in that mode, the exact domain of one of the person's verified
 * addresses (read from the account, never from the request; the store checks again, in the request's
 * transaction, that the address is still verified). One pending request per person and organization,
 * at most `maxPendingPerOrganization` per organization. `approve` and `decline` are a manager's
 * (`organization.invitations.manage`, ranked at or above the join role): an approval writes the
 * membership, with the store's join role, in the transaction that removes the request. Refusals are
 * `OrganizationError`s; an organization that offers the person nothing is `organizations.not_found`.
 */
export class OrganizationJoinRequests {
  readonly #options: OrganizationJoinRequestsOptions
  readonly #max: number
  readonly #clock: () => number

  constructor(options: OrganizationJoinRequestsOptions) {
    readOptions(options, 'OrganizationJoinRequests', OPTIONS)
    this.#options = options
    this.#max = options.maxPendingPerOrganization ?? 100
    this.#clock = options.clock ?? Date.now
  }

  /** Asks for the signed-in account; an existing pending request is answered as it is. */
  async ask(request: { readonly organizationId: string; readonly accountId: string }): Promise<JoinRequest> {
    const organizationId = requireOrganizationId(request?.organizationId)
    const accountId = requireMemberAccountId(request.accountId)
    const address = await this.#offeredAddress(organizationId, accountId)
    if (address === undefined) throw organizationRefusal('not-found')
    const outcome = await this.#options.store.requestToJoin({
      joinRequest: {
        requestId: generateFlowId(this.#options.randomBytes),
        organizationId,
        accountId,
        address,
        createdAt: new Date(this.#clock()),
      },
      maxPendingPerOrganization: this.#max,
    })
    if (outcome.outcome === 'pending') return outcome.joinRequest
    if (outcome.outcome !== 'requested') throw organizationRefusal(outcome.outcome)
    this.#emit({
      type: 'organization.join_requested',
      at: new Date(this.#clock()),
      accountId,
      organizationId,
      requestId: outcome.joinRequest.requestId,
    })
    return outcome.joinRequest
  }

  /** The organization's pending requests, newest first (a manager's view). */
  async list(request: {
    readonly organizationId: string
    readonly actorAccountId: string
  }): Promise<readonly JoinRequest[]> {
    const listed = await this.#options.store.listJoinRequests({
      organizationId: requireOrganizationId(request?.organizationId),
      actorAccountId: requireMemberAccountId(request.actorAccountId, 'actorAccountId'),
    })
    if (listed.outcome !== 'listed') throw organizationRefusal(listed.outcome)
    return listed.joinRequests
  }

  /** The account's own pending requests. */
  mine(accountId: string): Promise<readonly JoinRequest[]> {
    return this.#options.store.joinRequestsOf(requireMemberAccountId(accountId))
  }

  async approve(request: DecideRequest): Promise<Membership> {
    const outcome = await this.#decide(request, 'approve')
    if (outcome.outcome !== 'approved') throw organizationRefusal(outcome.outcome)
    this.#emit({
      type: 'organization.join_approved',
      at: new Date(this.#clock()),
      accountId: outcome.joinRequest.accountId,
      actorId: request.actorAccountId,
      organizationId: outcome.joinRequest.organizationId,
      requestId: outcome.joinRequest.requestId,
      role: outcome.membership.role,
    })
    return outcome.membership
  }

  async decline(request: DecideRequest): Promise<void> {
    const outcome = await this.#decide(request, 'decline')
    if (outcome.outcome !== 'declined') throw organizationRefusal(outcome.outcome)
    this.#emit({
      type: 'organization.join_declined',
      at: new Date(this.#clock()),
      accountId: outcome.joinRequest.accountId,
      actorId: request.actorAccountId,
      organizationId: outcome.joinRequest.organizationId,
      requestId: outcome.joinRequest.requestId,
    })
  }

  /** Withdraws the account's own pending request. */
  async withdraw(request: {
    readonly organizationId: string
    readonly requestId: string
    readonly accountId: string
  }): Promise<void> {
    const outcome = await this.#options.store.withdrawJoinRequest({
      organizationId: requireOrganizationId(request?.organizationId),
      requestId: requireInvitationId(request.requestId, 'requestId'),
      accountId: requireMemberAccountId(request.accountId),
    })
    if (outcome.outcome !== 'withdrawn') throw organizationRefusal(outcome.outcome)
  }

  #decide(request: DecideRequest, decision: 'approve' | 'decline') {
    return this.#options.store.decideJoinRequest({
      organizationId: requireOrganizationId(request?.organizationId),
      requestId: requireInvitationId(request.requestId, 'requestId'),
      actorAccountId: requireMemberAccountId(request.actorAccountId, 'actorAccountId'),
      decision,
      now: new Date(this.#clock()),
    })
  }

  /** A verified address of the account whose exact domain the organization holds in suggestion mode. */
  async #offeredAddress(organizationId: string, accountId: string): Promise<string | undefined> {
    const verified = (await this.#options.accounts.listEmailAddresses(accountId)).filter(
      (entry) => entry.verified,
    )
    for (const entry of verified) {
      const offers = await this.#options.domains.enrollmentFor([{ address: entry.address, verified: true }])
      const offered = offers.some(
        (offer) => offer.organizationId === organizationId && offer.mode === 'automatic-suggestion',
      )
      if (offered) return entry.address
    }
    return undefined
  }

  #emit(event: SecurityEvent): void {
    emitSecurityEvent(this.#options.events, event, this.#options.onSinkError)
  }
}
