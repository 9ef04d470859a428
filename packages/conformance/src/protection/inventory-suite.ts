import { RotatingProtector } from '../oauth/reencryption-fixture.js'
import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { inventoryCases } from './inventory-cases.js'
import { type EnvelopeInventoryFactory, type InventoryContext, START } from './inventory-fixture.js'

/**
 * The `EnvelopeInventory` suite, over stores that seal real envelopes: every holding counted under its
 * key version, expired OAuth transactions left out, completed retries and discarded tokens gone, and a
 * whole rotation drain (re-seal the vault and TOTP secrets, let transactions expire) ending with no
 * envelope under the old key. Each case gets storage of its own (the inventory counts everything).
 */
export function envelopeInventorySuite(
  factory: EnvelopeInventoryFactory,
): ConformanceSuite<InventoryContext> {
  return {
    name: 'EnvelopeInventory conformance',
    cases: inventoryCases,
    createContext: async () => {
      const keys = new RotatingProtector()
      let now = START
      const fixture = await factory({ protector: keys, clock: () => now })
      return {
        fixture,
        keys,
        setNow: (next: Date) => {
          now = next
        },
      }
    },
    disposeContext: (context) => context.fixture.dispose?.(),
  }
}

/** Runs every case and throws an `AggregateError` naming each violated invariant. */
export function assertEnvelopeInventoryConformance(factory: EnvelopeInventoryFactory): Promise<void> {
  return assertSuite(envelopeInventorySuite(factory))
}
