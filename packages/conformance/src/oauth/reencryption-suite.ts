import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { reencryptionCases } from './reencryption-cases.js'
import {
  type OAuthVaultReencryptionFactory,
  type ReencryptionContext,
  RotatingProtector,
} from './reencryption-fixture.js'

/**
 * The re-encryption suite: `reencryptOAuthVault` over a store's `OAuthVaultReencryption` operations
 * re-seals vault tokens and revocation retries under the new key with their own associated data,
 * keeps token versions, loses every compare-and-swap to a concurrent writer, runs idempotently, and
 * reports (never deletes) envelopes no key opens. Each case calls `factory` with a fresh protector
 * that the case rotates; the store must see no other case's envelopes.
 */
export function oauthVaultReencryptionSuite(
  factory: OAuthVaultReencryptionFactory,
): ConformanceSuite<ReencryptionContext> {
  return {
    name: 'OAuthVaultReencryption conformance',
    cases: reencryptionCases,
    createContext: async () => {
      const keys = new RotatingProtector()
      return { keys, fixture: await factory(keys) }
    },
    disposeContext: ({ fixture }) => fixture.dispose?.(),
  }
}

/** Runs every case and throws an `AggregateError` naming each violated invariant. */
export function assertOAuthVaultReencryptionConformance(
  factory: OAuthVaultReencryptionFactory,
): Promise<void> {
  return assertSuite(oauthVaultReencryptionSuite(factory))
}
