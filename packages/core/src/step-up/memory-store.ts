import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { StepUpError, StepUpErrorCodes } from './errors.js'
import { requireDate, requireStepUpDigest, validateStepUpRecord } from './input.js'
import type { StepUpRecord, StepUpStore } from './store.js'

export interface MemoryStepUpStoreOptions {
  /** Most records kept at once; expired ones are purged to make room. Default 10 000. */
  readonly capacity?: number
}

const MEMORY_STEP_UP_STORE_OPTIONS: OptionsShape<MemoryStepUpStoreOptions> = {
  capacity: { kind: 'number', code: 'step-up.store_options' },
}

/**
 * In-memory `StepUpStore`. `take` removes the record in the same synchronous step that finds it, so
 * concurrent redemptions have exactly one winner. Holds digests only, never tokens.
 */
export class MemoryStepUpStore implements StepUpStore {
  readonly #records = new Map<string, StepUpRecord>()
  readonly #capacity: number

  constructor(options: MemoryStepUpStoreOptions = {}) {
    readOptions(options, 'MemoryStepUpStore', MEMORY_STEP_UP_STORE_OPTIONS)
    const capacity = options.capacity ?? 10_000
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new ConfigurationError('step-up.store_options', 'capacity must be a positive integer')
    }
    this.#capacity = capacity
  }

  async save(record: StepUpRecord): Promise<void> {
    const copy = validateStepUpRecord(record)
    if (this.#records.has(copy.digest))
      throw new StepUpError(StepUpErrorCodes.duplicate, 'step-up digest already stored')
    if (this.#records.size >= this.#capacity) this.#purge(copy.issuedAt)
    if (this.#records.size >= this.#capacity)
      throw new StepUpError(StepUpErrorCodes.unavailable, 'step-up store is full')
    this.#records.set(copy.digest, copy)
  }

  async take(digest: string): Promise<StepUpRecord | null> {
    const key = requireStepUpDigest(digest, 'digest')
    const record = this.#records.get(key)
    if (record === undefined) return null
    this.#records.delete(key)
    return record
  }

  async purgeExpired(now: Date): Promise<number> {
    return this.#purge(requireDate(now, 'now'))
  }

  /**
   * Removes every credential issued to the account (for `MemoryAccountStore({ cascade })`: an account
   * deletion takes them in the same step). How many went.
   */
  deleteAccountData(accountId: string): number {
    let removed = 0
    for (const [digest, record] of this.#records) {
      if (record.accountId !== accountId) continue
      this.#records.delete(digest)
      removed += 1
    }
    return removed
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryStepUpStore { records: ${this.#records.size} }`
  }

  #purge(now: Date): number {
    let removed = 0
    for (const [digest, record] of this.#records) {
      if (record.expiresAt.getTime() <= now.getTime()) {
        this.#records.delete(digest)
        removed += 1
      }
    }
    return removed
  }
}
