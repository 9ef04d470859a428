import { ConfigurationError, InvalidInputError } from '../errors/portcullis-error.js'
import type { EnvelopeInventory, EnvelopeInventoryReport, EnvelopeLocationCount } from './inventory.js'

/**
 * A store that can count the envelopes it holds (the in-memory stores: `MemoryOAuthAccountStore`,
 * `MemoryOAuthTransactionStore`, `MemoryTotpStore`). `now` decides which envelopes expiry made harmless.
 */
export interface EnvelopeCounting {
  countEnvelopes(now: Date): readonly EnvelopeLocationCount[]
}

export interface MemoryEnvelopeInventoryOptions {
  /** The stores to count; give one `MemoryOAuthAccountStore` per provider (stores of one provider share rows). */
  readonly stores: readonly EnvelopeCounting[]
  /** Clock that decides which OAuth transactions have expired; defaults to the system clock. */
  readonly clock?: () => Date
}

/** The `EnvelopeInventory` of in-memory stores: each store counts its own, locations of one name are summed. */
export class MemoryEnvelopeInventory implements EnvelopeInventory {
  readonly #stores: readonly EnvelopeCounting[]
  readonly #clock: () => Date

  constructor(options: MemoryEnvelopeInventoryOptions) {
    const stores = options?.stores
    if (!Array.isArray(stores) || stores.some((store) => typeof store?.countEnvelopes !== 'function')) {
      throw new ConfigurationError(
        'protection.inventory_stores_invalid',
        'MemoryEnvelopeInventory needs stores that count their envelopes',
      )
    }
    const clock = options.clock ?? (() => new Date())
    if (typeof clock !== 'function') {
      throw new ConfigurationError('protection.inventory_clock_invalid', 'clock must be a function')
    }
    this.#stores = [...stores]
    this.#clock = clock
  }

  async count(): Promise<EnvelopeInventoryReport> {
    const now = this.#clock()
    if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
      throw new InvalidInputError('protection.inventory_clock_invalid', 'clock() must return a valid Date')
    }
    const merged = new Map<string, EnvelopeLocationCount>()
    for (const store of this.#stores) {
      for (const location of store.countEnvelopes(now)) {
        const seen = merged.get(location.location)
        if (seen === undefined) {
          merged.set(location.location, { ...location, keyVersions: { ...location.keyVersions } })
          continue
        }
        const keyVersions: Record<string, number> = { ...seen.keyVersions }
        for (const [version, count] of Object.entries(location.keyVersions)) {
          keyVersions[version] = (keyVersions[version] ?? 0) + count
        }
        merged.set(location.location, {
          ...seen,
          keyVersions,
          unreadable: seen.unreadable + location.unreadable,
        })
      }
    }
    return { countedAt: now, locations: [...merged.values()] }
  }
}
