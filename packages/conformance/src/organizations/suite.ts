import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import type { OrganizationStoresFactory, OrganizationStoresFixture } from './fixture.js'
import { invitationCases } from './invitation-cases.js'
import { membershipCases } from './membership-cases.js'
import { organizationCases } from './organization-cases.js'
import { organizationRaceCases } from './race-cases.js'

/**
 * The organization stores suite (`OrganizationStore`, `MembershipStore`, `InvitationStore` over one
 * schema): the first owner, duplicates and bad input that write nothing, permissions, grants at or
 * below one's own rank, the last owner kept, foreign organizations refused as not-found, membership
 * notices reaching the peer, account deletion (when the fixture can delete), invitations bound to a
 * verified address, single use, wrong and expired codes, revoke, resend and list, the outbox written
 * with the change (when the fixture can read it), and races on two instances: owners demoting each
 * other, every owner leaving at once, concurrent accepts, accept against revoke, grants against a
 * demotion.
 */
export function organizationStoresSuite(
  factory: OrganizationStoresFactory,
): ConformanceSuite<OrganizationStoresFixture> {
  return {
    name: 'Organization stores conformance',
    cases: [...organizationCases, ...membershipCases, ...invitationCases, ...organizationRaceCases],
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every case and throws an `AggregateError` naming each violated invariant. */
export function assertOrganizationStoresConformance(factory: OrganizationStoresFactory): Promise<void> {
  return assertSuite(organizationStoresSuite(factory))
}
