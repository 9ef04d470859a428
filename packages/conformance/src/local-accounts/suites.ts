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
import { sessionActiveOrganizationCases } from './session-active-cases.js'
import { sessionCases } from './session-cases.js'
import { sessionEpochCases } from './session-epoch-cases.js'
import { sessionTagCases } from './session-tag-cases.js'

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

export interface SessionStoreSuiteOptions {
  /**
   * The store implements the optional `getWithAccountEpoch` (one statement for a session and its account's
   * epoch): adds its cases, which need `accounts` in the fixture.
   */
  readonly accountEpoch?: boolean
  /** The store implements the optional `setActiveOrganization`: adds its cases (a race with revoke included). */
  readonly activeOrganization?: boolean
}

/**
 * The `SessionStore` suite: exact round trip, idle and absolute expiry at their boundaries, touch that
 * only moves forward (also under 16 concurrent touches), is capped and never revives, id rotation with
 * `replaces`, duplicates, listing, the four kinds of revoke, and typed invalid-input errors; with
 * `accountEpoch`, `getWithAccountEpoch` answering the account's current epoch; with `activeOrganization`,
 * `setActiveOrganization` (round trip, another account's handle, expiry, a race with revoke, bad input).
 */
export function sessionStoreSuite(
  factory: SessionStoreFactory,
  options: SessionStoreSuiteOptions = {},
): ConformanceSuite<SessionStoreFixture> {
  const cases = [
    ...sessionCases,
    ...sessionTagCases,
    ...(options.accountEpoch === true ? sessionEpochCases : []),
    ...(options.activeOrganization === true ? sessionActiveOrganizationCases : []),
  ]
  return suiteOf('SessionStore conformance', cases, factory)
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
export function assertSessionStoreConformance(
  factory: SessionStoreFactory,
  options: SessionStoreSuiteOptions = {},
): Promise<void> {
  return assertSuite(sessionStoreSuite(factory, options))
}

/** Runs every `RefreshTokenStore` case; throws an `AggregateError` naming each violated invariant. */
export function assertRefreshTokenStoreConformance(factory: RefreshTokenStoreFactory): Promise<void> {
  return assertSuite(refreshTokenStoreSuite(factory))
}

/** Runs every `RateLimitStore` case; throws an `AggregateError` naming each violated invariant. */
export function assertRateLimitStoreConformance(factory: RateLimitStoreFactory): Promise<void> {
  return assertSuite(rateLimitStoreSuite(factory))
}
