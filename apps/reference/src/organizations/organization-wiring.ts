import type { AccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing } from '@portcullis/core/codes'
import type { SecurityEventSink } from '@portcullis/core/local-accounts'
import {
  AutomaticInvitations,
  createOrganizationDomains,
  type OrganizationDomains,
  OrganizationJoinRequests,
  systemDnsTxtResolver,
} from '@portcullis/core/organization-domains'
import {
  type MembershipResolver,
  membershipResolver,
  OrganizationInvitations,
  OrganizationPermissions,
  OrganizationRoles,
} from '@portcullis/core/organizations'
import type { RevocationNotices } from '@portcullis/core/revocation'
import { freeMailDomains } from '@portcullis/http/organizations'
import {
  type PostgresClient,
  PostgresOrganizationDomainStore,
  PostgresOrganizationStore,
  PostgresRateLimitStore,
} from '@portcullis/postgres'
import type { DemoDirectory } from '../directory/demo-directory.js'
import type { KeyMaterial } from '../secrets/key-material.js'

/** Where the invitation mail's link leads (`?flow=...#code=...`): its GET shows a form, its POST accepts. */
export const ACCEPT_INVITATION_PATH = '/organizations/invitations/accept'

// #region roles
/**
 * The app's role catalogue, the same on every instance: owner (every store permission), admin (members,
 * invitations, rename), billing (the invoices) and viewer. Memberships hold the name; the tenant guard
 * reads the role and its permissions (`requiresTenantRole({ roles: ['owner', 'billing'] })`).
 */
export const REFERENCE_ROLES = new OrganizationRoles([
  { name: 'owner', rank: 300, permissions: Object.values(OrganizationPermissions) },
  {
    name: 'admin',
    rank: 200,
    permissions: [
      OrganizationPermissions.manageMembers,
      OrganizationPermissions.invite,
      OrganizationPermissions.rename,
    ],
  },
  { name: 'billing', rank: 150, permissions: ['invoices.read'] },
  { name: 'viewer', rank: 100, permissions: [] },
])
// #endregion roles

/** The organizations of the app: the Postgres stores, the invitations over them, the resolver. */
export interface ReferenceOrganizations {
  readonly store: PostgresOrganizationStore
  readonly invitations: OrganizationInvitations
  readonly roles: OrganizationRoles
  /** The invitation codes' keys (the one-time codes' key: the ring may be shared). */
  readonly keyRing: CodeKeyRing
  /** The `authorizationResolver`: the demo directory's grants, the tenants from memberships. */
  readonly resolver: MembershipResolver
  /**
   * What member lists call an account: a demo user's name, else its verified primary address (someone
   * who signed up from an invitation has only a generated username), else the pages' name for it.
   */
  memberName(accountId: string): Promise<string>
  /** Verified domains: a claim, its DNS TXT record, the check (free-mail domains refused). */
  readonly domains: OrganizationDomains
  /**
   * The `automatic-invitation` mode: told by the account flows when an address is verified, it mails a
   * `viewer` invitation from each organization holding exactly that domain verified in that mode.
   */
  readonly automatic: AutomaticInvitations
  /**
   * The `automatic-suggestion` mode: a person with a verified address at exactly the domain asks to join,
   * an owner or admin approves (a `viewer` membership, in the approval's transaction) or declines.
   */
  readonly joinRequests: OrganizationJoinRequests
  /**
   * The organizations holding a verified domain in `automatic-suggestion` mode at exactly the domain of
   * one of the account's verified addresses, that it does not belong to, each with whether the account
   * has asked to join and waits for a decision.
   */
  suggestionsFor(accountId: string): Promise<readonly OrganizationSuggestion[]>
}

/** An organization suggested to a person by the domain of a verified address of theirs. */
export interface OrganizationSuggestion {
  readonly organizationId: string
  readonly name: string
  readonly domain: string
  /** The account asked to join and no administrator has decided yet. */
  readonly requested: boolean
}

/**
 * Organizations over the app's Postgres database. The resolver reads a user's memberships once per
 * request and keeps them until a `membership` notice (a removal or a role change on any instance) evicts
 * them; the directory's resolver still answers scopes, app roles and the services' tenants.
 */
export async function createOrganizations(input: {
  readonly postgres: PostgresClient
  readonly keys: KeyMaterial
  readonly publicOrigin: string
  readonly notices: RevocationNotices
  /** Scopes, app roles and the services' tenants (the users' tenants are their memberships). */
  readonly directory: DemoDirectory
  readonly accounts: Pick<AccountStore, 'listEmailAddresses'>
  /** The DNS servers the domain checks ask (`127.0.0.1:5353`); the system's resolvers by default. */
  readonly dnsServers?: readonly string[]
  /** Where `organization.join_requested`, `join_approved` and `join_declined` go (the app's log). */
  readonly events?: SecurityEventSink
}): Promise<ReferenceOrganizations> {
  const { directory } = input
  const client = input.postgres
  const store = new PostgresOrganizationStore({ client, roles: REFERENCE_ROLES })
  const keyRing = new CodeKeyRing(input.keys.emailCodeKey)
  // #region wiring
  const invitations = new OrganizationInvitations({
    invitations: store,
    organizations: store,
    memberships: store,
    roles: REFERENCE_ROLES,
    keyRing,
    protector: input.keys.protector,
    publicOrigin: input.publicOrigin,
    acceptPath: ACCEPT_INVITATION_PATH,
    rateLimits: new PostgresRateLimitStore({ client }),
  })
  const resolver = membershipResolver({
    memberships: store,
    roles: REFERENCE_ROLES,
    resolver: directory.resolver(),
    notices: input.notices,
  })
  // #endregion wiring
  const memberName = async (accountId: string) => {
    const demo = directory.user(accountId)?.displayName
    if (demo !== undefined) return demo
    const addresses = await input.accounts.listEmailAddresses(accountId)
    const primary = addresses.find((each) => each.primary && each.verified)
    return primary?.address ?? (await directory.names.resolve(accountId)) ?? accountId
  }
  const domains = createOrganizationDomains({
    store: new PostgresOrganizationDomainStore({ client }),
    // The maintained free-mail list (loaded once per process): none of these can be claimed.
    freeMailDomains: await freeMailDomains(),
    resolver: systemDnsTxtResolver(input.dnsServers === undefined ? {} : { servers: input.dnsServers }),
  })
  // Never a membership: the person accepts the invitation, signed in with the address verified.
  const automatic = new AutomaticInvitations({
    domains,
    invitations,
    stores: store,
    accounts: input.accounts,
    role: 'viewer',
  })
  // #region join-requests
  // Asking needs a verified address at a domain held verified in suggestion mode (read from the account);
  // an approval gives the catalogue's lowest role (`viewer`: there is no `member` here).
  const joinRequests = new OrganizationJoinRequests({
    domains,
    store,
    accounts: input.accounts,
    ...(input.events === undefined ? {} : { events: input.events }),
  })
  // #endregion join-requests
  const suggestionsFor = async (accountId: string) => {
    const addresses = await input.accounts.listEmailAddresses(accountId)
    const offers = (await domains.enrollmentFor(addresses)).filter(
      (offer) => offer.mode === 'automatic-suggestion',
    )
    if (offers.length === 0) return []
    const mine = new Set((await store.membershipsOf(accountId)).map((each) => each.organizationId))
    const asked = new Set((await store.joinRequestsOf(accountId)).map((each) => each.organizationId))
    const suggestions: OrganizationSuggestion[] = []
    for (const offer of offers) {
      if (mine.has(offer.organizationId)) continue
      const organization = await store.getOrganization(offer.organizationId)
      if (organization === null) continue
      suggestions.push({
        organizationId: offer.organizationId,
        name: organization.name,
        domain: offer.domain,
        requested: asked.has(offer.organizationId),
      })
    }
    return suggestions
  }
  return {
    store,
    invitations,
    roles: REFERENCE_ROLES,
    keyRing,
    resolver,
    memberName,
    domains,
    automatic,
    joinRequests,
    suggestionsFor,
  }
}
