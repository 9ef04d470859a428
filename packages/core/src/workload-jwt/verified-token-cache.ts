import { createHash } from 'node:crypto'

/**
 * A bounded LRU of verification results keyed by the SHA-256 of the token (tokens themselves are never
 * kept). An entry never outlives the token's `exp` nor `maxTtlMs`. Only successes are ever stored.
 */
export class VerifiedTokenCache<Value> {
  readonly #entries = new Map<string, { value: Value; until: number }>()
  readonly #maxEntries: number
  readonly #maxTtlMs: number
  readonly #clock: () => number

  constructor(maxEntries: number, maxTtlMs: number, clock: () => number) {
    this.#maxEntries = maxEntries
    this.#maxTtlMs = maxTtlMs
    this.#clock = clock
  }

  get size(): number {
    return this.#entries.size
  }

  static keyOf(token: string): string {
    return createHash('sha256').update(token).digest('base64url')
  }

  get(key: string): Value | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (this.#clock() >= entry.until) {
      this.#entries.delete(key)
      return undefined
    }
    // Refresh recency: Map iteration order is insertion order.
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    return entry.value
  }

  /** `expiresAtMs` is the token's `exp`; the entry lives until the earlier of that and now + max TTL. */
  set(key: string, value: Value, expiresAtMs: number): void {
    const until = Math.min(expiresAtMs, this.#clock() + this.#maxTtlMs)
    if (until <= this.#clock()) return
    this.#entries.delete(key)
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next()
      if (oldest.done === true) break
      this.#entries.delete(oldest.value)
    }
    this.#entries.set(key, { value, until })
  }
}
