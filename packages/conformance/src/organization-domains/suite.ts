import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { domainLifecycleCases } from './cases.js'
import type { OrganizationDomainStoreFactory, OrganizationDomainStoreFixture } from './fixture.js'
import { domainRaceCases } from './race-cases.js'

/**
 * The `OrganizationDomainStore` suite: exact round trip, the existing claim answered, verification
 * recorded once, another organization's claim id or a wrong token finding nothing (no mark, no change,
 * no removal), one verified owner per domain while pending claims block nobody, removal freeing a
 * domain, enrollment modes, the per-organization limit, typed refusals of bad input that write nothing,
 * organization deletion (when the fixture can delete), and races on two instances: two organizations
 * verifying one domain, claims racing the limit, a claim racing a verification.
 */
export function organizationDomainStoreSuite(
  factory: OrganizationDomainStoreFactory,
): ConformanceSuite<OrganizationDomainStoreFixture> {
  return {
    name: 'OrganizationDomainStore conformance',
    cases: [...domainLifecycleCases, ...domainRaceCases],
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every case and throws an `AggregateError` naming each violated invariant. */
export function assertOrganizationDomainStoreConformance(
  factory: OrganizationDomainStoreFactory,
): Promise<void> {
  return assertSuite(organizationDomainStoreSuite(factory))
}
