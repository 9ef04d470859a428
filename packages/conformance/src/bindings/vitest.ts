import { describe, it } from 'vitest'
import { type ConformanceSuite, registerSuite } from '../suite/suite.js'

/** Registers one vitest test per case, so each invariant reports on its own line. */
export function describeConformance<Context>(suite: ConformanceSuite<Context>): void {
  registerSuite(suite, describe, it)
}
