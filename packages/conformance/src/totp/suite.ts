import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { enrollmentCases } from './enrollment-cases.js'
import type { TotpStoreFactory, TotpStoreFixture } from './fixture.js'
import { outboxCases } from './outbox-cases.js'
import { recoveryCases } from './recovery-cases.js'
import { resealingCases, type TotpResealingFactory, type TotpResealingFixture } from './resealing-cases.js'

/**
 * The `TotpStore` suite: pending enrollments, the compare-and-swap that enables one, an enabled
 * enrollment never replaced, time steps used once and only upwards (one winner of 20 concurrent uses,
 * across two instances when the fixture gives a `sibling`), removal, recovery codes redeemed once (one
 * winner of 20), replaced sets revoked at once, notifications written in the change's transaction only
 * when it happens, and strict input.
 */
export function totpStoreSuite(factory: TotpStoreFactory): ConformanceSuite<TotpStoreFixture> {
  return {
    name: 'TotpStore conformance',
    cases: [...enrollmentCases, ...recoveryCases, ...outboxCases],
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every case and throws an `AggregateError` naming each violated invariant. */
export function assertTotpStoreConformance(factory: TotpStoreFactory): Promise<void> {
  return assertSuite(totpStoreSuite(factory))
}

/**
 * The `TotpSecretResealing` suite (re-sealing secrets after a protector key rotation): paging lists every
 * pending and enabled secret not under the active key exactly once, the rewrite is a compare-and-swap
 * that changes the secret only, a removed or re-started enrollment is never overwritten or brought back,
 * and strict input.
 */
export function totpResealingSuite(factory: TotpResealingFactory): ConformanceSuite<TotpResealingFixture> {
  return {
    name: 'TotpSecretResealing conformance',
    cases: resealingCases,
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every re-sealing case and throws an `AggregateError` naming each violated invariant. */
export function assertTotpResealingConformance(factory: TotpResealingFactory): Promise<void> {
  return assertSuite(totpResealingSuite(factory))
}
