import type { RevocationNotices } from './revocation-notices.js'

/**
 * How long a per-instance cache may believe what it read: `trustedTtlMs` (a long safety bound) while its
 * revocation notices are trusted, else `stalenessMs` (the configured bound; 0 means strict reads). The
 * bound is asked on every read, so losing the listener stops the trust at once, for entries read before.
 *
 * Also the caches' generation: it moves whenever a notice evicts something or a flush drops everything.
 * A store read that began before the generation moved is not cached: a notice may have named what it
 * read while the read was in flight, and caching it would undo the eviction.
 */
export class CacheTrust {
  readonly #notices: RevocationNotices | undefined
  readonly #stalenessMs: number
  readonly #trustedTtlMs: number
  #generation = 0

  constructor(notices: RevocationNotices | undefined, stalenessMs: number, trustedTtlMs: number) {
    this.#notices = notices
    this.#stalenessMs = stalenessMs
    this.#trustedTtlMs = trustedTtlMs
  }

  /** Whether anything may ever be cached: a staleness bound above 0, or notices to be told by. */
  get enabled(): boolean {
    return this.#stalenessMs > 0 || this.#notices !== undefined
  }

  /** Whether notices are trusted now (the long bound applies). */
  get listening(): boolean {
    return this.#notices?.trusted() === true
  }

  /** How long after its read an entry is believed now; 0 when nothing may be believed (strict reads). */
  boundMs(): number {
    return this.#notices?.trusted() === true ? this.#trustedTtlMs : this.#stalenessMs
  }

  /** Changes whenever a notice or a flush reached the caches. */
  get generation(): number {
    return this.#generation
  }

  /** A notice evicted something or a flush dropped everything: reads in flight must not be cached. */
  moved(): void {
    this.#generation += 1
  }
}
