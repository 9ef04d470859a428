import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { entryCases } from './entry-cases.js'
import { type OAuthServerStoreContext, type OAuthServerStoreFactory, SuiteClock } from './fixture.js'
import { grantCases } from './grant-cases.js'
import { outboxCases } from './outbox-cases.js'
import { rotationCases } from './rotation-cases.js'

/**
 * The `OAuthServerStore` and `OAuthGrants` suite (the rules in the port's doc comment): each case gets a
 * fresh fixture over a store that reads the suite's clock. Run it with `assertSuite`, or per case with
 * `describeConformance`.
 */
export function oauthServerStoreSuite(
  factory: OAuthServerStoreFactory,
): ConformanceSuite<OAuthServerStoreContext> {
  return {
    name: 'OAuthServerStore conformance',
    cases: [...entryCases, ...rotationCases, ...grantCases, ...outboxCases],
    createContext: async () => {
      const clock = new SuiteClock()
      return { fixture: await factory({ clock: clock.read }), clock }
    },
    disposeContext: async ({ fixture }) => {
      await fixture.dispose?.()
    },
  }
}

/** Throws an `AggregateError` naming every invariant the store breaks. */
export function assertOAuthServerStoreConformance(factory: OAuthServerStoreFactory): Promise<void> {
  return assertSuite(oauthServerStoreSuite(factory))
}
