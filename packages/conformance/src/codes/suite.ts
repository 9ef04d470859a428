import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { codeLifecycleCases } from './cases.js'
import type { OneTimeCodeStoreFactory, OneTimeCodeStoreFixture } from './fixture.js'
import { codeMaintenanceCases } from './maintenance-cases.js'
import { codeRaceCases } from './race-cases.js'

/**
 * The `OneTimeCodeStore` suite: exact round trip, single use and replay, other purpose or flow id,
 * counted mismatches to exhaustion, expiry, supersede by account or address, revoke, bounded sweeps,
 * key rotation, typed refusals of bad input that write nothing, duplicate ids, the outbox written with
 * the code (when the fixture can read it), account deletion (when the fixture can delete), and races on
 * two instances: one consumer wins, concurrent wrong codes never exceed `maxAttempts`.
 */
export function oneTimeCodeStoreSuite(
  factory: OneTimeCodeStoreFactory,
): ConformanceSuite<OneTimeCodeStoreFixture> {
  return {
    name: 'OneTimeCodeStore conformance',
    cases: [...codeLifecycleCases, ...codeMaintenanceCases, ...codeRaceCases],
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every case and throws an `AggregateError` naming each violated invariant. */
export function assertOneTimeCodeStoreConformance(factory: OneTimeCodeStoreFactory): Promise<void> {
  return assertSuite(oneTimeCodeStoreSuite(factory))
}
