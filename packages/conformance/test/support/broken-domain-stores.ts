import { randomUUID } from 'node:crypto'
import { setImmediate as tick } from 'node:timers/promises'
import {
  type ClaimDomainOutcome,
  type ClaimDomainRequest,
  type DomainClaimRequest,
  type ListDomainsRequest,
  type MarkDomainVerifiedOutcome,
  type MarkDomainVerifiedRequest,
  MemoryOrganizationDomainStore,
  type OrganizationDomainRecord,
  type OrganizationDomainStore,
  type SetDomainEnrollmentRequest,
  validateDomainClaimRequest,
} from '@portcullis/core/organization-domains'
import type { OrganizationDomainStoreFixture } from '../../src/organization-domains/index.js'

/** The reference memory store; deleting an organization deletes its claims as the Postgres cascade does. */
export function memoryDomainFixture(): OrganizationDomainStoreFixture {
  const store = new MemoryOrganizationDomainStore()
  return {
    store,
    createOrganization: async () => `org-${randomUUID()}`,
    async deleteOrganization(organizationId) {
      store.deleteOrganizationData(organizationId)
    },
  }
}

type Flaw =
  | 'organization-blind'
  | 'token-blind'
  | 'check-then-verify'
  | 'check-then-claim'
  | 'claims-verified-domain'
  | 'duplicate-claims'
  | 'unvalidated'
  | 'moving-verified-at'
  | 'lists-pending'
  | 'no-cascade'

/** A map-backed store written from scratch; each flaw breaks one invariant. */
class NaiveDomainStore implements OrganizationDomainStore {
  readonly claims = new Map<string, OrganizationDomainRecord>()

  constructor(private readonly flaw: Flaw) {}

  async claim(request: ClaimDomainRequest): Promise<ClaimDomainOutcome> {
    const { claim, maxPerOrganization } =
      this.flaw === 'unvalidated'
        ? { ...request, claim: { ...request.claim } }
        : validateDomainClaimRequest(request)
    const all = [...this.claims.values()]
    const existing = all.find(
      (stored) => stored.organizationId === claim.organizationId && stored.domain === claim.domain,
    )
    if (existing !== undefined && this.flaw !== 'duplicate-claims')
      return { outcome: 'existing', claim: existing }
    const elsewhere = all.some((stored) => stored.domain === claim.domain && stored.verifiedAt !== null)
    if (elsewhere && this.flaw !== 'claims-verified-domain') return { outcome: 'taken' }
    const held = all.filter((stored) => stored.organizationId === claim.organizationId).length
    if (this.flaw === 'check-then-claim') await tick()
    if (held >= maxPerOrganization) return { outcome: 'limit-reached' }
    this.claims.set(claim.id, claim)
    return { outcome: 'claimed', claim }
  }

  async markVerified(request: MarkDomainVerifiedRequest): Promise<MarkDomainVerifiedOutcome> {
    const claim = this.#find(request)
    if (claim === undefined) return { outcome: 'not-found' }
    if (this.flaw !== 'token-blind' && claim.token !== request.token) return { outcome: 'not-found' }
    if (claim.verifiedAt !== null && this.flaw !== 'moving-verified-at') return { outcome: 'verified', claim }
    const elsewhere = [...this.claims.values()].some(
      (stored) => stored.domain === claim.domain && stored.verifiedAt !== null && stored.id !== claim.id,
    )
    if (this.flaw === 'check-then-verify') await tick()
    if (elsewhere) return { outcome: 'taken' }
    const verified = { ...claim, verifiedAt: request.now }
    this.claims.set(claim.id, verified)
    return { outcome: 'verified', claim: verified }
  }

  async setEnrollment(request: SetDomainEnrollmentRequest): Promise<OrganizationDomainRecord | null> {
    const claim = this.#find(request)
    if (claim === undefined) return null
    const updated = { ...claim, enrollment: request.enrollment }
    this.claims.set(claim.id, updated)
    return updated
  }

  async remove(request: DomainClaimRequest): Promise<boolean> {
    const claim = this.#find(request)
    return claim === undefined ? false : this.claims.delete(claim.id)
  }

  async list(request: ListDomainsRequest): Promise<readonly OrganizationDomainRecord[]> {
    const all = [...this.claims.values()]
    if ('organizationId' in request) {
      return all
        .filter((claim) => claim.organizationId === request.organizationId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    }
    if (request.verifiedDomains.length > 20 && this.flaw !== 'unvalidated') {
      throw Object.assign(new Error('too many'), { code: 'organization_domains.invalid_input' })
    }
    return request.verifiedDomains.flatMap((domain) =>
      all.filter(
        (claim) => claim.domain === domain && (claim.verifiedAt !== null || this.flaw === 'lists-pending'),
      ),
    )
  }

  #find(request: DomainClaimRequest): OrganizationDomainRecord | undefined {
    const claim = this.claims.get(request.id)
    if (claim === undefined) return undefined
    return this.flaw === 'organization-blind' || claim.organizationId === request.organizationId
      ? claim
      : undefined
  }
}

export interface BrokenDomainStore {
  readonly name: Flaw
  readonly caught: readonly string[]
  readonly factory: () => OrganizationDomainStoreFixture
}

const CAUGHT: Readonly<Record<Flaw, readonly string[]>> = {
  'organization-blind': ['domains.other-organization'],
  'token-blind': ['domains.other-organization'],
  'check-then-verify': ['domains.race-verify'],
  'check-then-claim': ['domains.race-limit'],
  'claims-verified-domain': ['domains.one-verified-owner'],
  'duplicate-claims': ['domains.existing-claim'],
  unvalidated: ['domains.invalid-input'],
  'moving-verified-at': ['domains.verify'],
  'lists-pending': ['domains.round-trip'],
  'no-cascade': ['domains.organization-deleted'],
}

export const brokenDomainStores: readonly BrokenDomainStore[] = (Object.keys(CAUGHT) as Flaw[]).map(
  (flaw) => ({
    name: flaw,
    caught: CAUGHT[flaw],
    factory: () => {
      const store = new NaiveDomainStore(flaw)
      return {
        store,
        createOrganization: async () => `org-${randomUUID()}`,
        async deleteOrganization(organizationId) {
          if (flaw === 'no-cascade') return
          for (const [id, claim] of store.claims)
            if (claim.organizationId === organizationId) store.claims.delete(id)
        },
      }
    },
  }),
)
