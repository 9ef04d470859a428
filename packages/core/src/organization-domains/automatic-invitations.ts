import type { EmailAddresses } from '../accounts/port.js'
import type { OrganizationInvitations } from '../organizations/invitations.js'
import type { InvitationStore, MembershipStore } from '../organizations/port.js'
import type { OrganizationDomains } from './organization-domains.js'

/** The refusals that mean the named manager may not invite now: skipped, never thrown. */
const SKIPPED = new Set([
  'organizations.not_found',
  'organizations.forbidden',
  'organizations.rank_exceeded',
  'organizations.rate_limited',
])

/** What became of one organization's automatic invitation for a newly verified address. */
export interface AutomaticInvitationResult {
  readonly organizationId: string
  readonly domain: string
  /**
   * `invited`: an invitation was issued (its mail sealed into the outbox in the same transaction).
   * `already-member`: the account belongs to the organization. `pending`: an unexpired invitation to
   * this address is waiting. `no-inviter`: the claim names no manager, or the one it names may no longer
   * invite (left, demoted, or the organization's limits): nothing was sent.
   */
  readonly outcome: 'invited' | 'already-member' | 'pending' | 'no-inviter'
}

export interface AutomaticInvitationsOptions {
  readonly domains: OrganizationDomains
  readonly invitations: OrganizationInvitations
  /** Where the account's memberships and the organization's pending invitations are read. */
  readonly stores: Pick<MembershipStore, 'membershipsOf'> & Pick<InvitationStore, 'listInvitations'>
  /** Where the address is confirmed verified for the account (never trusted from the caller). */
  readonly accounts: Pick<EmailAddresses, 'listEmailAddresses'>
  /** The role an automatic invitation offers. Default `member`. */
  readonly role?: string
  /** Milliseconds since the epoch; injectable for tests. */
  readonly clock?: () => number
}

/**
 * The `automatic-invitation` enrollment mode, end to end: when an account's address becomes verified,
 * `addressVerified` issues an invitation (through `OrganizationInvitations`, so its mail goes through the
 * outbox) from every organization that holds exactly that address's domain verified in that mode. The
 * invitation is issued in the name of the manager who chose the mode (`enrolledBy`), so the store checks
 * at that moment that they may still invite. Nobody becomes a member here: the person accepts the
 * invitation like any other, with the address verified. An address the account does not hold verified,
 * an account already a member and a pending invitation send nothing.
 */
export class AutomaticInvitations {
  readonly #options: AutomaticInvitationsOptions
  readonly #role: string
  readonly #clock: () => number

  constructor(options: AutomaticInvitationsOptions) {
    this.#options = options
    this.#role = options.role ?? 'member'
    this.#clock = options.clock ?? Date.now
  }

  /** Call after `accountId` verified `address` (the account service's verification flow). */
  async addressVerified(request: {
    readonly accountId: string
    readonly address: string
  }): Promise<readonly AutomaticInvitationResult[]> {
    const { domains, invitations, stores, accounts } = this.#options
    const held = (await accounts.listEmailAddresses(request.accountId)).find(
      (entry) => entry.address === request.address && entry.verified,
    )
    if (held === undefined) return []
    const offers = (await domains.enrollmentFor([{ address: held.address, verified: true }])).filter(
      (offer) => offer.mode === 'automatic-invitation',
    )
    if (offers.length === 0) return []
    const memberOf = new Set(
      (await stores.membershipsOf(request.accountId)).map((membership) => membership.organizationId),
    )
    const results: AutomaticInvitationResult[] = []
    for (const offer of offers) {
      const { organizationId, domain } = offer
      if (memberOf.has(organizationId)) {
        results.push({ organizationId, domain, outcome: 'already-member' })
        continue
      }
      const claim = (await domains.list(organizationId)).find((entry) => entry.claim.id === offer.domainId)
      const inviter = claim?.claim.enrolledBy
      if (inviter === undefined) {
        results.push({ organizationId, domain, outcome: 'no-inviter' })
        continue
      }
      const listed = await stores.listInvitations({
        organizationId,
        actorAccountId: inviter,
        now: new Date(this.#clock()),
      })
      if (listed.outcome !== 'listed') {
        results.push({ organizationId, domain, outcome: 'no-inviter' })
        continue
      }
      if (listed.invitations.some((invitation) => invitation.address === held.address)) {
        results.push({ organizationId, domain, outcome: 'pending' })
        continue
      }
      const issued = await invitations
        .invite({ organizationId, inviterAccountId: inviter, address: held.address, role: this.#role })
        .then(
          () => true,
          (error: unknown) => {
            const code = (error as { code?: unknown } | null)?.code
            // The manager may no longer invite, or the organization's limits: skipped, nothing sent.
            if (typeof code === 'string' && SKIPPED.has(code)) return false
            throw error
          },
        )
      results.push({ organizationId, domain, outcome: issued ? 'invited' : 'no-inviter' })
    }
    return Object.freeze(results)
  }
}
