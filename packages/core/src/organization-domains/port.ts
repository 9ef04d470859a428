// Verified domains of organizations. An organization claims a domain and receives a challenge token;
// it proves ownership by publishing the token in a DNS TXT record that core looks up through an
// injected resolver. A domain is verified for one organization at most (the store enforces it under
// concurrency); claims that are still pending block nobody. Nothing but that DNS proof verifies a
// domain: the addresses of an organization's members never do.

/**
 * What a verified domain does for people holding a verified address at it. `manual-invitation` (the
 * default): nothing, members are invited one by one. `automatic-invitation`: they are offered to join
 * the organization and may accept themselves. `automatic-suggestion`: they are shown the organization
 * and may ask to join; an administrator decides. A person always acts: nobody becomes a member because
 * of the domain of an address alone.
 */
export type DomainEnrollmentMode = 'manual-invitation' | 'automatic-invitation' | 'automatic-suggestion'

/** A domain claimed by an organization, verified or not. */
export interface OrganizationDomainRecord {
  /** The claim's handle: random, URL-safe (22 to 64 of A-Z a-z 0-9 - _). */
  readonly id: string
  readonly organizationId: string
  /** Normalized (`normalizeOrganizationDomain`): lower-case, IDNA-encoded. */
  readonly domain: string
  /**
   * The challenge token the organization publishes in DNS (base64url, 22 to 64 characters). It is
   * public by design (anyone can read the TXT record); it proves nothing without control of the zone.
   */
  readonly token: string
  readonly enrollment: DomainEnrollmentMode
  readonly createdAt: Date
  /** When DNS proved the claim; null while it is pending. */
  readonly verifiedAt: Date | null
  /**
   * The manager who chose the enrollment mode (at the claim, or its last `setEnrollment`), when known:
   * automatic invitations are issued in their name, so the store still checks at that moment that they
   * may invite. Absent: no automatic invitation is sent until a manager sets the mode.
   */
  readonly enrolledBy?: string
}

export interface ClaimDomainRequest {
  /** `verifiedAt` must be null: a claim starts pending. */
  readonly claim: OrganizationDomainRecord
  /** Refused (`limit-reached`) when the organization already holds this many claims. */
  readonly maxPerOrganization: number
}

/**
 * `claimed`: stored. `existing`: the organization already claims this domain; its claim is returned
 * unchanged (the new one is not stored). `taken`: another organization holds the domain verified.
 * `limit-reached`: the organization holds `maxPerOrganization` claims.
 */
export type ClaimDomainOutcome =
  | { readonly outcome: 'claimed'; readonly claim: OrganizationDomainRecord }
  | { readonly outcome: 'existing'; readonly claim: OrganizationDomainRecord }
  | { readonly outcome: 'taken' }
  | { readonly outcome: 'limit-reached' }

/** The organization and one of its claims: a claim id of another organization finds nothing. */
export interface DomainClaimRequest {
  readonly organizationId: string
  readonly id: string
}

export interface MarkDomainVerifiedRequest extends DomainClaimRequest {
  /** The token DNS answered with: the claim is marked only if it still carries this token. */
  readonly token: string
  readonly now: Date
}

/**
 * `verified`: the claim is verified (now, or it already was: `verifiedAt` is the first time).
 * `taken`: another organization holds the domain verified, this claim stays pending. `not-found`: no such
 * claim for the organization, or its token changed.
 */
export type MarkDomainVerifiedOutcome =
  | { readonly outcome: 'verified'; readonly claim: OrganizationDomainRecord }
  | { readonly outcome: 'taken' }
  | { readonly outcome: 'not-found' }

export interface SetDomainEnrollmentRequest extends DomainClaimRequest {
  readonly enrollment: DomainEnrollmentMode
  /** The manager choosing it (kept as the claim's `enrolledBy`; absent clears it). */
  readonly enrolledBy?: string | undefined
}

/** Either one organization's claims, or the verified claims of the given domains (enrollment). */
export type ListDomainsRequest =
  | { readonly organizationId: string }
  | { readonly verifiedDomains: readonly string[] }

/**
 * The durable boundary of organization domains. Every operation is one transaction and names the
 * organization, so a claim id of another organization behaves as an unknown one. At most one claim per
 * domain is verified at any time: two organizations verifying the same domain on two instances, one
 * wins and the other sees `taken`. Memory: `MemoryOrganizationDomainStore`; Postgres:
 * `PostgresOrganizationDomainStore`; conformance: `assertOrganizationDomainStoreConformance`.
 */
export interface OrganizationDomainStore {
  claim(request: ClaimDomainRequest): Promise<ClaimDomainOutcome>
  markVerified(request: MarkDomainVerifiedRequest): Promise<MarkDomainVerifiedOutcome>
  /** The updated claim, or null when the organization has no such claim. */
  setEnrollment(request: SetDomainEnrollmentRequest): Promise<OrganizationDomainRecord | null>
  /** Deletes the claim (verified or not); false when the organization has no such claim. */
  remove(request: DomainClaimRequest): Promise<boolean>
  /**
   * An organization's claims oldest first, or the verified claims of `verifiedDomains` (at most 20
   * domains) in the order of the domains.
   */
  list(request: ListDomainsRequest): Promise<readonly OrganizationDomainRecord[]>
}
