import { describe, it } from 'node:test'
import { type ConformanceSuite, registerSuite } from '../suite/suite.js'

/** Registers one `node:test` test per case. */
export function describeConformance<Context>(suite: ConformanceSuite<Context>): void {
  registerSuite(suite, describe, it)
}
