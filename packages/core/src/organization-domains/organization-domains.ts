import { integerBetween, type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import {
  DOMAIN_CHALLENGE_LABEL,
  type DomainRandomSource,
  domainChallengeName,
  domainChallengeValue,
  generateDomainHandle,
  isChallengeLabel,
  readDomainChallenge,
} from './challenge.js'
import { type DnsTxtResolver, systemDnsTxtResolver } from './dns.js'
import { type FreeMailDomains, isFreeMailDomain, normalizeOrganizationDomain } from './domain-name.js'
import { OrganizationDomainError, OrganizationDomainErrorCodes } from './errors.js'
import { MAX_DOMAINS_PER_ORGANIZATION, requireEnrollmentMode, requireOrganizationId } from './input.js'
import type { DomainEnrollmentMode, OrganizationDomainRecord, OrganizationDomainStore } from './port.js'

export interface OrganizationDomainsOptions {
  readonly store: OrganizationDomainStore
  /**
   * The free-mail domains no organization may claim (a `Set` of lower-case ASCII domains): a maintained
   * list such as `freeMailDomains()` of `@portcullis/http/organizations`. Required: nobody forgets it.
   */
  readonly freeMailDomains: FreeMailDomains
  /** Where TXT records are looked up. Default `systemDnsTxtResolver()` (the system's DNS servers). */
  readonly resolver?: DnsTxtResolver
  /** The label of the challenge name (`_portcullis-challenge`, the default). */
  readonly challengeLabel?: string
  /** The most domains one organization may claim (1 to 1000). Default 20. */
  readonly maxDomainsPerOrganization?: number
  /** Milliseconds since the epoch; `Date.now` by default. */
  readonly clock?: () => number
  readonly randomBytes?: DomainRandomSource
}

const OPTIONS: OptionsShape<OrganizationDomainsOptions> = {
  store: { required: true, kind: 'object' },
  freeMailDomains: {
    required: true,
    kind: 'object',
    check: (value) =>
      typeof (value as { has?: unknown }).has === 'function' ? undefined : 'must have a has(domain) method',
    hint: 'pass freeMailDomains() of @portcullis/http/organizations, or a Set of domains',
  },
  resolver: {
    kind: 'object',
    check: (value) =>
      typeof (value as { resolveTxt?: unknown }).resolveTxt === 'function'
        ? undefined
        : 'must have a resolveTxt(name) method',
  },
  challengeLabel: {
    kind: 'string',
    check: (value) => (isChallengeLabel(value) ? undefined : 'must be one underscore label'),
  },
  maxDomainsPerOrganization: { kind: 'number', check: integerBetween(1, MAX_DOMAINS_PER_ORGANIZATION) },
  clock: { kind: 'function' },
  randomBytes: { kind: 'function' },
}

/** A claim with the TXT record that proves it. */
export interface OrganizationDomainClaim {
  readonly claim: OrganizationDomainRecord
  /** Where to publish the record: `_portcullis-challenge.example.com`. */
  readonly recordName: string
  /** The record's text: `portcullis-domain-verification=<token>`. */
  readonly recordValue: string
}

/** An organization a person may join or ask to join through a verified domain of one of their addresses. */
export interface DomainEnrollmentOffer {
  readonly organizationId: string
  readonly domainId: string
  readonly domain: string
  readonly mode: Exclude<DomainEnrollmentMode, 'manual-invitation'>
}

/** An address of a person; only verified ones count for enrollment. */
export interface EnrollmentAddress {
  readonly address: string
  readonly verified: boolean
}

export interface ClaimOrganizationDomainRequest {
  readonly organizationId: string
  /** As typed by a person: normalized here (`normalizeOrganizationDomain`). */
  readonly domain: string
  /** Default `manual-invitation`. It applies once the domain is verified. */
  readonly enrollment?: DomainEnrollmentMode
  /** The manager claiming it (from the verified principal): automatic invitations go in their name. */
  readonly managerAccountId?: string
}

export interface OrganizationDomainRef {
  readonly organizationId: string
  readonly id: string
}

/** The verified-domain flows over an `OrganizationDomainStore` (see `createOrganizationDomains`). */
export interface OrganizationDomains {
  claim(request: ClaimOrganizationDomainRequest): Promise<OrganizationDomainClaim>
  verify(request: OrganizationDomainRef): Promise<OrganizationDomainRecord>
  list(organizationId: string): Promise<readonly OrganizationDomainClaim[]>
  setEnrollment(
    request: OrganizationDomainRef & {
      readonly enrollment: DomainEnrollmentMode
      /** The manager choosing it (from the verified principal): automatic invitations go in their name. */
      readonly managerAccountId?: string
    },
  ): Promise<OrganizationDomainRecord>
  remove(request: OrganizationDomainRef): Promise<void>
  enrollmentFor(addresses: readonly EnrollmentAddress[]): Promise<readonly DomainEnrollmentOffer[]>
}

function refused(
  code: (typeof OrganizationDomainErrorCodes)[keyof typeof OrganizationDomainErrorCodes],
  message: string,
): OrganizationDomainError {
  return new OrganizationDomainError(code, message)
}

const notFound = () =>
  refused(OrganizationDomainErrorCodes.notFound, 'the organization has no such domain claim')

/**
 * Verified domains, opt-in. `claim` refuses free-mail domains (and their subdomains) and a domain another
 * organization holds verified, and answers the TXT record to publish; `verify` looks the record up
 * through the resolver and marks the claim verified only when the record carries this claim's token (no
 * record: `organization_domains.record_missing`; another claim's record:
 * `organization_domains.record_mismatch`; verified elsewhere meanwhile: `organization_domains.taken`).
 * Nothing else verifies a domain: not the addresses of the organization's members. `enrollmentFor` turns
 * a person's verified addresses into the organizations they may join or ask to join; it never makes
 * anyone a member. Who may call which operation (an administrator of the organization) is the caller's
 * route policy: every operation names the organization, and a claim of another one is not found.
 */
export function createOrganizationDomains(options: OrganizationDomainsOptions): OrganizationDomains {
  readOptions(options, 'createOrganizationDomains', OPTIONS)
  const { store, freeMailDomains } = options
  const resolver = options.resolver ?? systemDnsTxtResolver()
  const label = options.challengeLabel ?? DOMAIN_CHALLENGE_LABEL
  const max = options.maxDomainsPerOrganization ?? 20
  const clock = options.clock ?? Date.now
  const random = options.randomBytes
  const now = () => {
    const time = clock()
    if (!Number.isFinite(time))
      throw new ConfigurationError('configuration.invalid_option', 'the clock answered no time')
    return new Date(time)
  }
  const withChallenge = (claim: OrganizationDomainRecord): OrganizationDomainClaim =>
    Object.freeze({
      claim,
      recordName: domainChallengeName(claim.domain, label),
      recordValue: domainChallengeValue(claim.token),
    })
  const owned = async (ref: OrganizationDomainRef): Promise<OrganizationDomainRecord> => {
    const organizationId = requireOrganizationId(ref?.organizationId)
    const found = (await store.list({ organizationId })).find((claim) => claim.id === ref.id)
    if (found === undefined) throw notFound()
    return found
  }

  return {
    async claim(request) {
      const organizationId = requireOrganizationId(request?.organizationId)
      const domain = normalizeOrganizationDomain(request.domain)
      const enrollment = requireEnrollmentMode(request.enrollment ?? 'manual-invitation')
      if (isFreeMailDomain(domain, freeMailDomains)) {
        throw refused(OrganizationDomainErrorCodes.freeMail, 'a free-mail domain cannot be claimed')
      }
      const answer = await store.claim({
        claim: {
          id: generateDomainHandle(16, random),
          organizationId,
          domain,
          token: generateDomainHandle(32, random),
          enrollment,
          createdAt: now(),
          verifiedAt: null,
          ...(request.managerAccountId === undefined ? {} : { enrolledBy: request.managerAccountId }),
        },
        maxPerOrganization: max,
      })
      if (answer.outcome === 'taken') {
        throw refused(OrganizationDomainErrorCodes.taken, 'another organization holds this domain verified')
      }
      if (answer.outcome === 'limit-reached') {
        throw refused(
          OrganizationDomainErrorCodes.limitReached,
          `an organization may claim at most ${max} domains`,
        )
      }
      return withChallenge(answer.claim)
    },

    async verify(ref) {
      const claim = await owned(ref)
      if (claim.verifiedAt !== null) return claim
      if (isFreeMailDomain(claim.domain, freeMailDomains)) {
        throw refused(OrganizationDomainErrorCodes.freeMail, 'a free-mail domain cannot be verified')
      }
      const records = await resolver.resolveTxt(domainChallengeName(claim.domain, label))
      const seen = readDomainChallenge(records, claim.token)
      if (seen === 'missing') {
        throw refused(
          OrganizationDomainErrorCodes.recordMissing,
          'the challenge name has no verification record',
        )
      }
      if (seen === 'mismatch') {
        throw refused(
          OrganizationDomainErrorCodes.recordMismatch,
          "the challenge name's verification record is not this claim's",
        )
      }
      const marked = await store.markVerified({
        organizationId: claim.organizationId,
        id: claim.id,
        token: claim.token,
        now: now(),
      })
      if (marked.outcome === 'taken') {
        throw refused(OrganizationDomainErrorCodes.taken, 'another organization holds this domain verified')
      }
      if (marked.outcome === 'not-found') throw notFound()
      return marked.claim
    },

    async list(organizationId) {
      const claims = await store.list({ organizationId: requireOrganizationId(organizationId) })
      return Object.freeze(claims.map(withChallenge))
    },

    async setEnrollment(request) {
      const enrollment = requireEnrollmentMode(request?.enrollment)
      const updated = await store.setEnrollment({
        organizationId: requireOrganizationId(request.organizationId),
        id: (await owned(request)).id,
        enrollment,
        enrolledBy: request.managerAccountId,
      })
      if (updated === null) throw notFound()
      return updated
    },

    async remove(ref) {
      const claim = await owned(ref)
      if (!(await store.remove({ organizationId: claim.organizationId, id: claim.id }))) throw notFound()
    },

    async enrollmentFor(addresses) {
      if (!Array.isArray(addresses)) {
        throw refused(OrganizationDomainErrorCodes.invalidInput, 'addresses must be an array')
      }
      const domains = new Set<string>()
      for (const entry of addresses) {
        // Affiliation counts only through a verified address, and only for its exact domain.
        if (entry?.verified !== true || typeof entry.address !== 'string') continue
        const at = entry.address.lastIndexOf('@')
        if (at < 0) continue
        try {
          domains.add(normalizeOrganizationDomain(entry.address.slice(at + 1)))
        } catch {
          // An address whose domain no organization can hold (a single label) offers nothing.
        }
      }
      if (domains.size === 0) return []
      const offers: DomainEnrollmentOffer[] = []
      const all = [...domains]
      for (let start = 0; start < all.length; start += 20) {
        for (const claim of await store.list({ verifiedDomains: all.slice(start, start + 20) })) {
          if (claim.verifiedAt === null || claim.enrollment === 'manual-invitation') continue
          offers.push(
            Object.freeze({
              organizationId: claim.organizationId,
              domainId: claim.id,
              domain: claim.domain,
              mode: claim.enrollment,
            }),
          )
        }
      }
      return Object.freeze(offers)
    },
  }
}
