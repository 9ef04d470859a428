// Verified domains of organizations (opt-in): the claim and its DNS TXT challenge, the resolver port and
// its `node:dns` default, the free-mail refusal, enrollment modes, the store port and its memory form.
export type { AutomaticInvitationResult, AutomaticInvitationsOptions } from './automatic-invitations.js'
export { AutomaticInvitations } from './automatic-invitations.js'
export type { DomainRandomSource } from './challenge.js'
export {
  DOMAIN_CHALLENGE_LABEL,
  DOMAIN_CHALLENGE_PREFIX,
  domainChallengeName,
  domainChallengeValue,
  generateDomainHandle,
  readDomainChallenge,
} from './challenge.js'
export type { DnsTxtResolver, SystemDnsTxtResolverOptions } from './dns.js'
export { systemDnsTxtResolver } from './dns.js'
export type { FreeMailDomains } from './domain-name.js'
export {
  domainOfAddress,
  isFreeMailDomain,
  isNormalizedOrganizationDomain,
  normalizeOrganizationDomain,
} from './domain-name.js'
export type { OrganizationDomainErrorCode, OrganizationDomainErrorOptions } from './errors.js'
export { OrganizationDomainError, OrganizationDomainErrorCodes } from './errors.js'
export {
  DOMAIN_ENROLLMENT_MODES,
  MAX_DOMAINS_PER_ORGANIZATION,
  MAX_LISTED_DOMAINS,
  organizationDomainRecord,
  validateDomainClaimHandle,
  validateDomainClaimRequest,
  validateListDomainsRequest,
  validateMarkDomainVerifiedRequest,
  validateSetDomainEnrollmentRequest,
} from './input.js'
export type { DecideRequest, OrganizationJoinRequestsOptions } from './join-requests.js'
export { OrganizationJoinRequests } from './join-requests.js'
export { MemoryOrganizationDomainStore } from './memory-store.js'
export type {
  ClaimOrganizationDomainRequest,
  DomainEnrollmentOffer,
  EnrollmentAddress,
  OrganizationDomainClaim,
  OrganizationDomainRef,
  OrganizationDomains,
  OrganizationDomainsOptions,
} from './organization-domains.js'
export { createOrganizationDomains } from './organization-domains.js'
export type {
  ClaimDomainOutcome,
  ClaimDomainRequest,
  DomainClaimRequest,
  DomainEnrollmentMode,
  ListDomainsRequest,
  MarkDomainVerifiedOutcome,
  MarkDomainVerifiedRequest,
  OrganizationDomainRecord,
  OrganizationDomainStore,
  SetDomainEnrollmentRequest,
} from './port.js'
