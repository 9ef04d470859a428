import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import type { OAuthAccountStoreFactory, OAuthAccountStoreFixture } from './fixture.js'
import { inputCases } from './input-cases.js'
import { linkCases } from './link-cases.js'
import { outboxCases } from './outbox-cases.js'
import { retryCases } from './retry-cases.js'
import { unlinkCases } from './unlink-cases.js'
import { vaultCases } from './vault-cases.js'

/**
 * The `OAuthAccountStore` suite: provisioning and its race, exact linking and both link conflicts,
 * relink, scope upgrade, unlink outcomes and races, final-method protection, the encrypted vault and
 * its row binding, compare-and-swap winners and ABA, conditional discard, revocation retries, link and
 * unlink notifications written in the change's transaction only when it happens, and typed errors for
 * bad input. Each case gets a fresh fixture from `factory`.
 */
export function oauthAccountStoreSuite(
  factory: OAuthAccountStoreFactory,
): ConformanceSuite<OAuthAccountStoreFixture> {
  return {
    name: 'OAuthAccountStore conformance',
    cases: [...linkCases, ...unlinkCases, ...vaultCases, ...retryCases, ...outboxCases, ...inputCases],
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every case and throws an `AggregateError` naming each violated invariant. */
export function assertOAuthAccountStoreConformance(factory: OAuthAccountStoreFactory): Promise<void> {
  return assertSuite(oauthAccountStoreSuite(factory))
}
