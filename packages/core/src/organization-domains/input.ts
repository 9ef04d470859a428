import { isNormalizedOrganizationDomain } from './domain-name.js'
import { invalidDomainInput } from './errors.js'
import type {
  ClaimDomainRequest,
  DomainClaimRequest,
  DomainEnrollmentMode,
  ListDomainsRequest,
  MarkDomainVerifiedRequest,
  OrganizationDomainRecord,
  SetDomainEnrollmentRequest,
} from './port.js'

// Every store checks a request whole before it writes anything: a bad field is an
// `organization_domains.invalid_input` error and nothing is stored or changed. Messages name the field,
// never its value.

export const DOMAIN_ENROLLMENT_MODES: readonly DomainEnrollmentMode[] = Object.freeze([
  'manual-invitation',
  'automatic-invitation',
  'automatic-suggestion',
])

/** A claim handle or a challenge token: 22 to 64 URL-safe characters. */
const HANDLE_FORMAT = /^[A-Za-z0-9_-]{22,64}$/
const MAX_ORGANIZATION_ID_LENGTH = 255
/** The most claims one organization may hold, whatever the application configures. */
export const MAX_DOMAINS_PER_ORGANIZATION = 1000
/** The most domains one enrollment lookup names (a person's verified addresses). */
export const MAX_LISTED_DOMAINS = 20
const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u

function fieldsOf(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidDomainInput(`${field} must be an object`)
  }
  return value as Record<string, unknown>
}

export function requireOrganizationId(value: unknown, field = 'organizationId'): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim() !== value || CONTROL.test(value)) {
    throw invalidDomainInput(`${field} must be a non-blank string without surrounding whitespace`)
  }
  if (value.length > MAX_ORGANIZATION_ID_LENGTH) throw invalidDomainInput(`${field} is too long`)
  return value
}

export function requireDomainHandle(value: unknown, field = 'id'): string {
  if (typeof value !== 'string' || !HANDLE_FORMAT.test(value)) {
    throw invalidDomainInput(`${field} must be 22 to 64 of A-Z a-z 0-9 - _`)
  }
  return value
}

export function requireEnrollmentMode(value: unknown, field = 'enrollment'): DomainEnrollmentMode {
  if (typeof value !== 'string' || !DOMAIN_ENROLLMENT_MODES.includes(value as DomainEnrollmentMode)) {
    throw invalidDomainInput(`${field} must be one of ${DOMAIN_ENROLLMENT_MODES.join(', ')}`)
  }
  return value as DomainEnrollmentMode
}

function requireDomain(value: unknown, field: string): string {
  if (!isNormalizedOrganizationDomain(value)) {
    throw invalidDomainInput(`${field} must be a normalized domain (normalizeOrganizationDomain)`)
  }
  return value
}

function requireDate(value: unknown, field: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw invalidDomainInput(`${field} must be a valid Date`)
  }
  return new Date(value.getTime())
}

export function validateDomainClaimRequest(request: ClaimDomainRequest): {
  claim: OrganizationDomainRecord
  maxPerOrganization: number
} {
  const fields = fieldsOf(request, 'request')
  const claim = fieldsOf(fields.claim, 'claim')
  const max = fields.maxPerOrganization
  if (!Number.isSafeInteger(max) || (max as number) < 1 || (max as number) > MAX_DOMAINS_PER_ORGANIZATION) {
    throw invalidDomainInput(
      `maxPerOrganization must be an integer from 1 to ${MAX_DOMAINS_PER_ORGANIZATION}`,
    )
  }
  if (claim.verifiedAt !== null) throw invalidDomainInput('claim.verifiedAt must be null')
  const record: OrganizationDomainRecord = Object.freeze({
    id: requireDomainHandle(claim.id, 'claim.id'),
    organizationId: requireOrganizationId(claim.organizationId, 'claim.organizationId'),
    domain: requireDomain(claim.domain, 'claim.domain'),
    token: requireDomainHandle(claim.token, 'claim.token'),
    enrollment: requireEnrollmentMode(claim.enrollment, 'claim.enrollment'),
    createdAt: requireDate(claim.createdAt, 'claim.createdAt'),
    verifiedAt: null,
    ...optionalEnrolledBy(claim.enrolledBy, 'claim.enrolledBy'),
  })
  return { claim: record, maxPerOrganization: max as number }
}

export function validateDomainClaimHandle(request: DomainClaimRequest): DomainClaimRequest {
  const fields = fieldsOf(request, 'request')
  return {
    organizationId: requireOrganizationId(fields.organizationId),
    id: requireDomainHandle(fields.id),
  }
}

export function validateMarkDomainVerifiedRequest(
  request: MarkDomainVerifiedRequest,
): MarkDomainVerifiedRequest {
  const fields = fieldsOf(request, 'request')
  return {
    ...validateDomainClaimHandle(request),
    token: requireDomainHandle(fields.token, 'token'),
    now: requireDate(fields.now, 'now'),
  }
}

export function validateSetDomainEnrollmentRequest(
  request: SetDomainEnrollmentRequest,
): SetDomainEnrollmentRequest {
  const fields = fieldsOf(request, 'request')
  return {
    ...validateDomainClaimHandle(request),
    enrollment: requireEnrollmentMode(fields.enrollment),
    ...optionalEnrolledBy(fields.enrolledBy, 'enrolledBy'),
  }
}

const ACCOUNT_ID_UNSTORABLE = /[\p{Cc}\p{Cs}]/u

/** `{ enrolledBy }` when given: an account id (1 to 255 characters, trimmed, no control characters). */
function optionalEnrolledBy(value: unknown, field: string): { readonly enrolledBy?: string } {
  if (value === undefined) return {}
  if (
    typeof value !== 'string' ||
    value === '' ||
    value.length > 255 ||
    value.trim() !== value ||
    ACCOUNT_ID_UNSTORABLE.test(value)
  ) {
    throw invalidDomainInput(`${field} must be an account id`)
  }
  return { enrolledBy: value }
}

export function validateListDomainsRequest(
  request: ListDomainsRequest,
): { readonly organizationId: string } | { readonly verifiedDomains: readonly string[] } {
  const fields = fieldsOf(request, 'request')
  const hasOrganization = 'organizationId' in fields
  const hasDomains = 'verifiedDomains' in fields
  if (hasOrganization === hasDomains) {
    throw invalidDomainInput('request must name either organizationId or verifiedDomains')
  }
  if (hasOrganization) return { organizationId: requireOrganizationId(fields.organizationId) }
  const domains = fields.verifiedDomains
  if (!Array.isArray(domains) || domains.length > MAX_LISTED_DOMAINS) {
    throw invalidDomainInput(`verifiedDomains must be an array of at most ${MAX_LISTED_DOMAINS} domains`)
  }
  const unique = [
    ...new Set(domains.map((domain, index) => requireDomain(domain, `verifiedDomains[${index}]`))),
  ]
  return { verifiedDomains: Object.freeze(unique) }
}

/** A frozen copy; stores return their records through this. */
export function organizationDomainRecord(fields: OrganizationDomainRecord): OrganizationDomainRecord {
  return Object.freeze({
    id: fields.id,
    organizationId: fields.organizationId,
    domain: fields.domain,
    token: fields.token,
    enrollment: fields.enrollment,
    createdAt: new Date(fields.createdAt.getTime()),
    verifiedAt: fields.verifiedAt === null ? null : new Date(fields.verifiedAt.getTime()),
    ...(typeof fields.enrolledBy === 'string' ? { enrolledBy: fields.enrolledBy } : {}),
  })
}
