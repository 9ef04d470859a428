/**
 * A fixed-window counter per client address for registration requests. It lives in this process only
 * (each server instance counts on its own) and holds at most `maxAddresses` addresses: when full, the
 * oldest window is dropped first.
 */
export class RegistrationLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>()
  readonly #perMinute: number
  readonly #clock: () => number
  readonly #maxAddresses: number

  constructor(perMinute: number, clock: () => number, maxAddresses = 10_000) {
    this.#perMinute = perMinute
    this.#clock = clock
    this.#maxAddresses = maxAddresses
  }

  /** Counts one request; the seconds to wait when the address is over its limit, else undefined. */
  take(address: string): number | undefined {
    const now = this.#clock()
    const window = this.#windows.get(address)
    if (window === undefined || now - window.start >= 60_000) {
      this.#windows.delete(address)
      if (this.#windows.size >= this.#maxAddresses) {
        const oldest = this.#windows.keys().next().value
        if (oldest !== undefined) this.#windows.delete(oldest)
      }
      this.#windows.set(address, { start: now, count: 1 })
      return undefined
    }
    if (window.count >= this.#perMinute) return Math.max(1, Math.ceil((window.start + 60_000 - now) / 1000))
    window.count += 1
    return undefined
  }
}
