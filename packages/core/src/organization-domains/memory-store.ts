import { invalidDomainInput } from './errors.js'
import {
  organizationDomainRecord,
  validateDomainClaimHandle,
  validateDomainClaimRequest,
  validateListDomainsRequest,
  validateMarkDomainVerifiedRequest,
  validateSetDomainEnrollmentRequest,
} from './input.js'
import type {
  ClaimDomainOutcome,
  ClaimDomainRequest,
  DomainClaimRequest,
  ListDomainsRequest,
  MarkDomainVerifiedOutcome,
  MarkDomainVerifiedRequest,
  OrganizationDomainRecord,
  OrganizationDomainStore,
  SetDomainEnrollmentRequest,
} from './port.js'

/**
 * In-memory `OrganizationDomainStore` for tests and a single process. Every decision (the limit, the
 * domain verified elsewhere, the mark) happens in one synchronous step, so concurrent claims and
 * verifications behave as the Postgres store's do: one verified claim per domain. Call
 * `deleteOrganizationData` when an organization is deleted (the Postgres foreign key cascades).
 */
export class MemoryOrganizationDomainStore implements OrganizationDomainStore {
  readonly #claims = new Map<string, OrganizationDomainRecord>()

  async claim(request: ClaimDomainRequest): Promise<ClaimDomainOutcome> {
    const { claim, maxPerOrganization } = validateDomainClaimRequest(request)
    if (this.#claims.has(claim.id)) throw invalidDomainInput('a claim with this id is already stored')
    let held = 0
    for (const stored of this.#claims.values()) {
      if (stored.organizationId === claim.organizationId) {
        if (stored.domain === claim.domain) return { outcome: 'existing', claim: stored }
        held += 1
      } else if (stored.domain === claim.domain && stored.verifiedAt !== null) {
        return { outcome: 'taken' }
      }
    }
    if (held >= maxPerOrganization) return { outcome: 'limit-reached' }
    this.#claims.set(claim.id, claim)
    return { outcome: 'claimed', claim }
  }

  async markVerified(request: MarkDomainVerifiedRequest): Promise<MarkDomainVerifiedOutcome> {
    const { organizationId, id, token, now } = validateMarkDomainVerifiedRequest(request)
    const claim = this.#owned(organizationId, id)
    if (claim === undefined || claim.token !== token) return { outcome: 'not-found' }
    if (claim.verifiedAt !== null) return { outcome: 'verified', claim }
    for (const stored of this.#claims.values()) {
      if (stored.domain === claim.domain && stored.verifiedAt !== null) return { outcome: 'taken' }
    }
    const verified = organizationDomainRecord({ ...claim, verifiedAt: now })
    this.#claims.set(id, verified)
    return { outcome: 'verified', claim: verified }
  }

  async setEnrollment(request: SetDomainEnrollmentRequest): Promise<OrganizationDomainRecord | null> {
    const { organizationId, id, enrollment, enrolledBy } = validateSetDomainEnrollmentRequest(request)
    const claim = this.#owned(organizationId, id)
    if (claim === undefined) return null
    const { enrolledBy: _previous, ...rest } = claim
    const updated = organizationDomainRecord({
      ...rest,
      enrollment,
      ...(enrolledBy === undefined ? {} : { enrolledBy }),
    })
    this.#claims.set(id, updated)
    return updated
  }

  async remove(request: DomainClaimRequest): Promise<boolean> {
    const { organizationId, id } = validateDomainClaimHandle(request)
    if (this.#owned(organizationId, id) === undefined) return false
    return this.#claims.delete(id)
  }

  async list(request: ListDomainsRequest): Promise<readonly OrganizationDomainRecord[]> {
    const query = validateListDomainsRequest(request)
    const claims = [...this.#claims.values()]
    if ('organizationId' in query) {
      return claims
        .filter((claim) => claim.organizationId === query.organizationId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
    }
    const found: OrganizationDomainRecord[] = []
    for (const domain of query.verifiedDomains) {
      const verified = claims.find((claim) => claim.domain === domain && claim.verifiedAt !== null)
      if (verified !== undefined) found.push(verified)
    }
    return found
  }

  /** Removes every claim of the organization (when it is deleted); how many went. */
  deleteOrganizationData(organizationId: string): number {
    let removed = 0
    for (const [id, claim] of this.#claims) {
      if (claim.organizationId !== organizationId) continue
      this.#claims.delete(id)
      removed += 1
    }
    return removed
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryOrganizationDomainStore { claims: ${this.#claims.size} }`
  }

  #owned(organizationId: string, id: string): OrganizationDomainRecord | undefined {
    const claim = this.#claims.get(id)
    return claim?.organizationId === organizationId ? claim : undefined
  }
}
