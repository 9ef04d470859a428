import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import type {
  RateLimitStoreFactory,
  RateLimitStoreFixture,
  RefreshTokenStoreFactory,
  RefreshTokenStoreFixture,
  SessionStoreFactory,
  SessionStoreFixture,
  StoreFixture,
} from './fixture.js'
import { rateLimitCases } from './rate-limit-cases.js'
import { refreshCases } from './refresh-cases.js'
import { sessionCases } from './session-cases.js'

function suiteOf<Fixture extends StoreFixture<unknown>>(
  name: string,
  cases: ConformanceSuite<Fixture>['cases'],
  factory: () => Fixture | Promise<Fixture>,
): ConformanceSuite<Fixture> {
  return {
    name,
    cases,
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/**
 * The `SessionStore` suite: exact round trip, idle and absolute expiry at their boundaries, touch that
 * only moves forward (also under 16 concurrent touches), is capped and never revives, id rotation with
 * `replaces`, duplicates, listing, the three kinds of revoke, and typed invalid-input errors.
 */
export function sessionStoreSuite(factory: SessionStoreFactory): ConformanceSuite<SessionStoreFixture> {
  return suiteOf('SessionStore conformance', sessionCases, factory)
}

/**
 * The `RefreshTokenStore` suite: rotation chains, reuse detection revoking the family, 16 concurrent
 * rotations of one token (one rotated, 15 reused, family revoked), token and family expiry, revoke by
 * token or id, revokeAccount, duplicates, and typed invalid-input errors.
 */
export function refreshTokenStoreSuite(
  factory: RefreshTokenStoreFactory,
): ConformanceSuite<RefreshTokenStoreFixture> {
  return suiteOf('RefreshTokenStore conformance', refreshCases, factory)
}

/**
 * The `RateLimitStore` suite: fixed windows and their boundary, independent keys and reset, 40
 * concurrent attempts (split over `store` and `peer`) allowing exactly `limit`, and typed
 * invalid-input errors.
 */
export function rateLimitStoreSuite(factory: RateLimitStoreFactory): ConformanceSuite<RateLimitStoreFixture> {
  return suiteOf('RateLimitStore conformance', rateLimitCases, factory)
}

/** Runs every `SessionStore` case; throws an `AggregateError` naming each violated invariant. */
export function assertSessionStoreConformance(factory: SessionStoreFactory): Promise<void> {
  return assertSuite(sessionStoreSuite(factory))
}

/** Runs every `RefreshTokenStore` case; throws an `AggregateError` naming each violated invariant. */
export function assertRefreshTokenStoreConformance(factory: RefreshTokenStoreFactory): Promise<void> {
  return assertSuite(refreshTokenStoreSuite(factory))
}

/** Runs every `RateLimitStore` case; throws an `AggregateError` naming each violated invariant. */
export function assertRateLimitStoreConformance(factory: RateLimitStoreFactory): Promise<void> {
  return assertSuite(rateLimitStoreSuite(factory))
}
