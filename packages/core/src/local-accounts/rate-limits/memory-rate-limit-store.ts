import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { LocalStoreError, LocalStoreErrorCodes } from '../store-errors.js'
import {
  type ConsumeRateLimitRequest,
  type RateLimitDecision,
  type RateLimitStore,
  rateLimitDecision,
  requireRateLimitKey,
  validateConsumeRateLimit,
} from './rate-limit-store.js'

export interface MemoryRateLimitStoreOptions {
  /** Most keys counted at once; ended windows are dropped to make room. Default 100 000. */
  readonly capacity?: number
}

const OPTIONS: OptionsShape<MemoryRateLimitStoreOptions> = {
  capacity: { kind: 'number', code: 'local.invalid_config' },
}

interface Window {
  count: number
  readonly resetAt: Date
}

/**
 * In-memory `RateLimitStore` for a single process (every instance counts on its own: use a shared store
 * such as Postgres behind several instances). `consume` counts and decides in one synchronous step.
 * Holding at most `capacity` keys, it drops ended windows to make room and, when every window is still
 * running, refuses a new key with `local.store_full` (class unavailable) instead of forgetting a count.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, Window>()
  readonly #capacity: number
  /** While full: no window ends before this time, so there is nothing to drop until then. */
  #fullUntil = 0

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    readOptions(options, 'MemoryRateLimitStore', OPTIONS)
    const capacity = options.capacity ?? 100_000
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new ConfigurationError('local.invalid_config', 'capacity must be a positive integer')
    }
    this.#capacity = capacity
  }

  async consume(request: ConsumeRateLimitRequest): Promise<RateLimitDecision> {
    const { key, limit, windowSeconds, now } = validateConsumeRateLimit(request)
    const current = this.#windows.get(key)
    if (current !== undefined && now.getTime() < current.resetAt.getTime()) {
      current.count += 1
      return rateLimitDecision(current.count, limit, current.resetAt)
    }
    if (current === undefined && this.#windows.size >= this.#capacity) this.#dropEnded(now)
    if (current === undefined && this.#windows.size >= this.#capacity) {
      throw new LocalStoreError(LocalStoreErrorCodes.full, 'the rate-limit store is full')
    }
    const opened: Window = { count: 1, resetAt: new Date(now.getTime() + windowSeconds * 1000) }
    this.#windows.set(key, opened)
    return rateLimitDecision(opened.count, limit, opened.resetAt)
  }

  async reset(key: string): Promise<void> {
    this.#windows.delete(requireRateLimitKey(key))
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryRateLimitStore { keys: ${this.#windows.size} }`
  }

  /** Drops ended windows; at most one scan per window end while the store stays full. */
  #dropEnded(now: Date): void {
    if (now.getTime() < this.#fullUntil) return
    let nextEnd = Number.POSITIVE_INFINITY
    for (const [key, window] of this.#windows) {
      const end = window.resetAt.getTime()
      if (end <= now.getTime()) this.#windows.delete(key)
      else nextEnd = Math.min(nextEnd, end)
    }
    this.#fullUntil = this.#windows.size >= this.#capacity ? nextEnd : 0
  }
}
