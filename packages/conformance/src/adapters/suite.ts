import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { accountCases } from './account-cases.js'
import { mcpCases } from './mcp-cases.js'
import { policyCases } from './policy-cases.js'
import { type AdapterFactory, type AdapterFixture, adapterFixture } from './scenario.js'

/**
 * The HTTP adapter suite: what any Portcullis adapter (Express, Fastify, yours) must do over real HTTP,
 * given a factory that builds and starts the scenario's application with it: policy outcomes and
 * challenges, anyOf / allOf, duplicated credentials, guards and tenant path forgeries, one-use step-up,
 * problem bodies, the OpenAPI document.
 */
export function adapterSuite(factory: AdapterFactory): ConformanceSuite<AdapterFixture> {
  return {
    name: 'HTTP adapter conformance',
    cases: [...policyCases, ...accountCases, ...mcpCases],
    createContext: () => adapterFixture(factory),
    disposeContext: (fixture) => fixture.dispose(),
  }
}

/** Runs every case and throws an `AggregateError` naming each violated invariant. */
export function assertAdapterConformance(factory: AdapterFactory): Promise<void> {
  return assertSuite(adapterSuite(factory))
}
