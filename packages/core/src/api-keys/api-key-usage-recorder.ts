import { integerBetween, numberBetween, type OptionsShape, readOptions } from '../errors/options.js'
import type { ApiKeyStore } from './api-key-store.js'

export interface ApiKeyUsageRecorderOptions {
  readonly store: Pick<ApiKeyStore, 'recordUsage'>
  /** Distinct keys buffered between flushes; more are dropped (and counted). Default 1024. */
  readonly capacity?: number
  /** Delay between the first buffered use and its flush. Default 60 s. */
  readonly flushIntervalMs?: number
}

export interface ApiKeyUsageStats {
  readonly buffered: number
  readonly dropped: number
  readonly flushes: number
  readonly flushFailures: number
}

const USAGE_RECORDER_OPTIONS: OptionsShape<ApiKeyUsageRecorderOptions> = {
  store: { required: true, kind: 'object' },
  capacity: { kind: 'number', check: integerBetween(1) },
  // setTimeout refuses delays above 2^31 - 1 ms (it fires at once instead)
  flushIntervalMs: { kind: 'number', check: numberBetween(1, 2 ** 31 - 1) },
}

/**
 * Records API key use off the request path: `record` only touches an in-memory map (coalesced per key,
 * latest time wins); a timer (unref'd, so it never keeps the process alive) writes batches to the store.
 * Store failures are swallowed and counted: usage tracking never fails a request.
 */
export class ApiKeyUsageRecorder {
  readonly #store: Pick<ApiKeyStore, 'recordUsage'>
  readonly #capacity: number
  readonly #intervalMs: number
  #buffer = new Map<string, number>()
  #timer: ReturnType<typeof setTimeout> | undefined
  #flushing: Promise<void> = Promise.resolve()
  #closed = false
  #stats = { dropped: 0, flushes: 0, flushFailures: 0 }

  constructor(options: ApiKeyUsageRecorderOptions) {
    readOptions(options, 'ApiKeyUsageRecorder', USAGE_RECORDER_OPTIONS)
    this.#store = options.store
    this.#capacity = options.capacity ?? 1024
    this.#intervalMs = options.flushIntervalMs ?? 60_000
  }

  record(keyId: string, usedAt: number): void {
    if (this.#closed) return
    const previous = this.#buffer.get(keyId)
    if (previous === undefined && this.#buffer.size >= this.#capacity) {
      this.#stats.dropped++
      return
    }
    if (previous === undefined || usedAt > previous) this.#buffer.set(keyId, usedAt)
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined
        void this.flush()
      }, this.#intervalMs)
      this.#timer.unref()
    }
  }

  /** Writes what is buffered now; resolves after the write, never rejects. */
  flush(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    const batch = this.#buffer
    this.#buffer = new Map()
    const write = async (): Promise<void> => {
      if (batch.size === 0) return
      try {
        await this.#store.recordUsage(
          [...batch].map(([keyId, usedAt]) => ({ keyId, usedAt: new Date(usedAt) })),
        )
        this.#stats.flushes++
      } catch {
        this.#stats.flushFailures++
      }
    }
    this.#flushing = this.#flushing.then(write)
    return this.#flushing
  }

  /** Flushes and stops recording. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true
    await this.flush()
  }

  stats(): ApiKeyUsageStats {
    return { buffered: this.#buffer.size, ...this.#stats }
  }
}
