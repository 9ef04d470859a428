import { hash } from 'node:crypto'
import type { OptionsShape } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'

/** How a verification cache is bounded, as applications configure it. */
export interface VerifiedCacheOptions {
  /** Default 10,000; 1 to 1,000,000. */
  readonly maxEntries?: number
  /** Default 300; 1 to 3600. */
  readonly maxTtlSeconds?: number
}

/**
 * The option shape of a nested cache object (`cache`, `digestMemo`); `code` is the caller's configuration
 * error code, as for `verifiedCacheBounds`, which checks the bounds.
 */
export function verifiedCacheOptions(code: string): OptionsShape<VerifiedCacheOptions> {
  return { maxEntries: { kind: 'number', code }, maxTtlSeconds: { kind: 'number', code } }
}

function integerIn(value: number | undefined, fallback: number, max: number, name: string, code: string) {
  const result = value ?? fallback
  if (typeof result !== 'number' || !Number.isInteger(result) || result < 1 || result > max) {
    throw new ConfigurationError(code, `${name} must be an integer from 1 to ${max}`)
  }
  return result
}

/** Validated bounds (`code` is the caller's configuration error code), ready for the constructor. */
export function verifiedCacheBounds(
  options: VerifiedCacheOptions,
  prefix: string,
  code: string,
): { readonly maxEntries: number; readonly maxTtlMs: number } {
  return {
    maxEntries: integerIn(options.maxEntries, 10_000, 1_000_000, `${prefix}.maxEntries`, code),
    maxTtlMs: integerIn(options.maxTtlSeconds, 300, 3600, `${prefix}.maxTtlSeconds`, code) * 1000,
  }
}

/**
 * A bounded LRU of verification results keyed by the SHA-256 of the credential (credentials themselves
 * are never kept). An entry never outlives the `until` it was stored with nor `maxTtlMs`. Callers store
 * successes only, so a flood of bad credentials can never evict or poison good entries.
 */
export class VerifiedCache<Value> {
  readonly #entries = new Map<string, { value: Value; until: number }>()
  readonly #maxEntries: number
  readonly #maxTtlMs: number
  readonly #clock: () => number
  #newest: string | undefined

  constructor(maxEntries: number, maxTtlMs: number, clock: () => number) {
    this.#maxEntries = maxEntries
    this.#maxTtlMs = maxTtlMs
    this.#clock = clock
  }

  get size(): number {
    return this.#entries.size
  }

  /** The cache key of a credential: its SHA-256, so the cache never holds the credential itself. */
  static keyOf(credential: string): string {
    return hash('sha256', credential, 'base64url')
  }

  get(key: string): Value | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (this.#clock() >= entry.until) {
      this.#entries.delete(key)
      return undefined
    }
    // Refresh recency (Map iteration order is insertion order), unless it is already the newest entry:
    // a busy client hitting one entry over and over costs a single lookup.
    if (key !== this.#newest) {
      this.#entries.delete(key)
      this.#entries.set(key, entry)
      this.#newest = key
    }
    return entry.value
  }

  /** The entry lives until the earlier of `untilMs` (a token's `exp`, say) and now + the max TTL. */
  set(key: string, value: Value, untilMs = Number.POSITIVE_INFINITY): void {
    const now = this.#clock()
    const until = Math.min(untilMs, now + this.#maxTtlMs)
    if (until <= now) return
    this.#entries.delete(key)
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next()
      if (oldest.done === true) break
      this.#entries.delete(oldest.value)
    }
    this.#entries.set(key, { value, until })
    this.#newest = key
  }
}
