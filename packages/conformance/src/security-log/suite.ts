import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { inputCases, readCases, retentionCases, writeCases } from './cases.js'
import type { SecurityLogFactory, SecurityLogFixture } from './fixture.js'

/**
 * The `SecurityLog` suite: per-account and by-type reads newest first with cursors that stay stable
 * while two instances append, idempotent and all-or-nothing batches, odd values unchanged, typed
 * refusals of malformed requests, and bounded retention sweeps.
 */
export function securityLogSuite(factory: SecurityLogFactory): ConformanceSuite<SecurityLogFixture> {
  return {
    name: 'SecurityLog conformance',
    cases: [...readCases, ...writeCases, ...inputCases, ...retentionCases],
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every case; throws an `AggregateError` naming each violated invariant. */
export function assertSecurityLogConformance(factory: SecurityLogFactory): Promise<void> {
  return assertSuite(securityLogSuite(factory))
}
