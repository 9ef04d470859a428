import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { challengeCases } from './challenge-cases.js'
import type {
  PasskeyChallengeStoreFactory,
  PasskeyChallengeStoreFixture,
  PasskeyStoreFactory,
  PasskeyStoreFixture,
} from './fixture.js'
import { outboxCases } from './outbox-cases.js'
import { passkeyCases } from './passkey-cases.js'

/**
 * The `PasskeyStore` suite: exact round trip and account listings, duplicate credential ids, the counter
 * compare-and-swap (one winner of 20), counterless authenticators, suspension, owner-only rename and
 * removal, notifications written in the change's transaction only when it happens, strict input.
 */
export function passkeyStoreSuite(factory: PasskeyStoreFactory): ConformanceSuite<PasskeyStoreFixture> {
  return {
    name: 'PasskeyStore conformance',
    cases: [...passkeyCases, ...outboxCases],
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

export function assertPasskeyStoreConformance(factory: PasskeyStoreFactory): Promise<void> {
  return assertSuite(passkeyStoreSuite(factory))
}

/**
 * The `PasskeyChallengeStore` suite: exact one-use round trip, another browser's lookup never burns,
 * the expiry boundary, one winner of 20 concurrent consumers, purge, strict input and duplicates.
 */
export function passkeyChallengeStoreSuite(
  factory: PasskeyChallengeStoreFactory,
): ConformanceSuite<PasskeyChallengeStoreFixture> {
  return {
    name: 'PasskeyChallengeStore conformance',
    cases: challengeCases,
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

export function assertPasskeyChallengeStoreConformance(factory: PasskeyChallengeStoreFactory): Promise<void> {
  return assertSuite(passkeyChallengeStoreSuite(factory))
}
