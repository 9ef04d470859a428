import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { stepUpCases } from './cases.js'
import type { StepUpStoreFactory, StepUpStoreFixture } from './fixture.js'

/**
 * The `StepUpStore` suite: exact round trip, atomic take (one winner of 32), duplicate digests,
 * expiry purge, and, through the core `StepUpService` over the store, single use, concurrent
 * redemption, the expiry boundary, burn-on-wrong-binding and guesses that do not burn.
 */
export function stepUpStoreSuite(factory: StepUpStoreFactory): ConformanceSuite<StepUpStoreFixture> {
  return {
    name: 'StepUpStore conformance',
    cases: stepUpCases,
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every case and throws an `AggregateError` naming each violated invariant. */
export function assertStepUpStoreConformance(factory: StepUpStoreFactory): Promise<void> {
  return assertSuite(stepUpStoreSuite(factory))
}
