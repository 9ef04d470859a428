import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { dropCases, noticeCases } from './cases.js'
import type { RevocationNoticesFactory, RevocationNoticesFixture } from './fixture.js'

export interface RevocationNoticesSuiteOptions {
  /**
   * The implementation listens over a connection that can drop (Postgres `LISTEN`): adds the cases that
   * drop it (`interruptPeer`) and require distrust at once, a flush before trust returns, and recovery.
   */
  readonly listenerCanDrop?: boolean
}

/**
 * The `RevocationNotices` suite: trusted when ready, every kind delivered exactly to the publishing
 * instance and its peer, order, odd identifiers, malformed notices refused, unsubscribe, a failing
 * subscriber isolated; with `listenerCanDrop`, distrust on a dropped listener and a flush before
 * trusting again.
 */
export function revocationNoticesSuite(
  factory: RevocationNoticesFactory,
  options: RevocationNoticesSuiteOptions = {},
): ConformanceSuite<RevocationNoticesFixture> {
  return {
    name: 'RevocationNotices conformance',
    cases: options.listenerCanDrop === true ? [...noticeCases, ...dropCases] : noticeCases,
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every case; throws an `AggregateError` naming each violated invariant. */
export function assertRevocationNoticesConformance(
  factory: RevocationNoticesFactory,
  options: RevocationNoticesSuiteOptions = {},
): Promise<void> {
  return assertSuite(revocationNoticesSuite(factory, options))
}
