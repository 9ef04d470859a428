import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { joinRequestCases } from './join-request-cases.js'
import type { JoinRequestStoresFactory, JoinRequestStoresFixture } from './join-request-fixture.js'
import { joinRequestRaceCases } from './join-request-race-cases.js'

/**
 * The join-request store suite (`JoinRequestStore` over the organization schema): approval writes the
 * membership with the join role and removes the request, decline, one pending request per account and
 * organization, the verified address checked by the store, members and unknown organizations refused,
 * the pending limit, managers only (and another organization's request id not found), withdrawal,
 * bounded newest-first lists, bad input that writes nothing, requests going with their account and
 * organization, and races on two instances: approve against decline, two approvals, one account asking
 * many times, many accounts against the limit, a request against an accepted invitation.
 */
export function joinRequestStoresSuite(
  factory: JoinRequestStoresFactory,
): ConformanceSuite<JoinRequestStoresFixture> {
  return {
    name: 'Join request stores conformance',
    cases: [...joinRequestCases, ...joinRequestRaceCases],
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every case and throws an `AggregateError` naming each violated invariant. */
export function assertJoinRequestStoresConformance(factory: JoinRequestStoresFactory): Promise<void> {
  return assertSuite(joinRequestStoresSuite(factory))
}
