import type { MemoryAccountData } from '../accounts/memory-tables.js'
import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { MailOutboxStore, OutboxEntry } from '../mail/outbox.js'
import { type EnvelopeLocationCount, emptyTally, tallyEnvelope } from '../protection/inventory.js'
import { codeDigestMatches } from './code-keys.js'
import { OneTimeCodeError, OneTimeCodeErrorCodes } from './errors.js'
import {
  validateConsumeRequest,
  validateIssueRequest,
  validateNewCode,
  validateRevokeRequest,
  validateSweepRequest,
} from './input.js'
import type {
  ConsumeCodeOutcome,
  ConsumeCodeRequest,
  IssueCodeRequest,
  OneTimeCodeRecord,
  OneTimeCodeStore,
  RevokeCodesRequest,
  SweepCodesRequest,
} from './port.js'

/**
 * Where `issue` writes the mail that carries a code: a `MemoryMailOutbox`, whose `prepareWrite` lets the
 * code and its messages land in one synchronous step, or any outbox's `enqueue` (awaited before the code
 * is committed, so a refused message stores no code).
 */
export type MemoryCodeOutbox = Pick<MailOutboxStore, 'enqueue'> & {
  /** Validates entries and returns the synchronous write of them (see `MemoryMailOutbox`). */
  readonly prepareWrite?: (entries: readonly OutboxEntry[]) => () => void
}

export interface MemoryOneTimeCodeStoreOptions {
  /** The outbox `issue` writes its entries into. Without one, an `issue` with entries is refused. */
  readonly outbox?: MemoryCodeOutbox
  /** Most codes kept at once; expired ones are purged to make room. Default 100 000. */
  readonly capacity?: number
}

const OPTIONS: OptionsShape<MemoryOneTimeCodeStoreOptions> = {
  outbox: { kind: 'object', code: 'codes.store_options' },
  capacity: { kind: 'number', code: 'codes.store_options' },
}

/**
 * In-memory `OneTimeCodeStore` for tests and a single process. Every decision of `consume` (find,
 * compare, count or delete) happens in one synchronous step, so concurrent consumers have one winner
 * and concurrent wrong guesses are counted one by one. Holds digests only, never codes. Give it to
 * `MemoryAccountStore({ cascade })` so deleting an account deletes its codes, as the Postgres foreign
 * key does.
 */
export class MemoryOneTimeCodeStore implements OneTimeCodeStore, MemoryAccountData {
  readonly #records = new Map<string, OneTimeCodeRecord>()
  readonly #outbox: MemoryCodeOutbox | undefined
  readonly #capacity: number
  readonly #reserved = new Set<string>()

  constructor(options: MemoryOneTimeCodeStoreOptions = {}) {
    readOptions(options, 'MemoryOneTimeCodeStore', OPTIONS)
    const capacity = options.capacity ?? 100_000
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new ConfigurationError('codes.store_options', 'capacity must be a positive integer', {
        option: 'MemoryOneTimeCodeStore.capacity',
      })
    }
    if (options.outbox !== undefined && typeof options.outbox.enqueue !== 'function') {
      throw new ConfigurationError('codes.store_options', 'outbox must have an enqueue method', {
        option: 'MemoryOneTimeCodeStore.outbox',
      })
    }
    this.#capacity = capacity
    this.#outbox = options.outbox
  }

  async issue(request: IssueCodeRequest): Promise<void> {
    const { code, supersede, outbox } = validateIssueRequest(request)
    if (outbox.length > 0 && this.#outbox === undefined) {
      throw new OneTimeCodeError(
        OneTimeCodeErrorCodes.invalidInput,
        'outbox entries need a store with an outbox',
      )
    }
    this.#reserve(code.id, code.createdAt)
    try {
      // With `prepareWrite` the code and its messages are written in one synchronous step. Otherwise the
      // outbox write is the only await and the code is committed right after it: a refusal stores nothing.
      let writeOutbox = (): void => {}
      if (outbox.length > 0 && typeof this.#outbox?.prepareWrite === 'function') {
        writeOutbox = this.#outbox.prepareWrite(outbox)
      } else if (outbox.length > 0) {
        await this.#outbox?.enqueue(outbox)
      }
      if (supersede) {
        for (const [id, live] of this.#records) {
          if (live.purpose !== code.purpose) continue
          const same =
            code.accountId === null
              ? live.accountId === null && live.address === code.address
              : live.accountId === code.accountId
          if (same) this.#records.delete(id)
        }
      }
      this.#records.set(code.id, Object.freeze({ ...code, attempts: 0 }))
      writeOutbox()
    } finally {
      this.#reserved.delete(code.id)
    }
  }

  /**
   * Checks a new code of a change made elsewhere in the same step (`MemoryAccountStore({ codes })`,
   * a sign-up that issues its verification code) and returns the synchronous write of it: call it right
   * after the change, before any `await`, so the change and its code land together. A stored id is
   * `codes.duplicate`. Nothing is superseded (the code's account is new).
   */
  prepareIssue(code: unknown): () => void {
    const valid = validateNewCode(code)
    this.#reserve(valid.id, valid.createdAt)
    this.#reserved.delete(valid.id)
    return () => {
      this.#records.set(valid.id, Object.freeze({ ...valid, attempts: 0 }))
    }
  }

  async consume(request: ConsumeCodeRequest): Promise<ConsumeCodeOutcome> {
    const { id, purpose, candidates, now } = validateConsumeRequest(request)
    const record = this.#records.get(id)
    if (record === undefined || record.purpose !== purpose) return { outcome: 'not-found' }
    if (record.expiresAt.getTime() <= now.getTime()) return { outcome: 'expired' }
    if (codeDigestMatches(record, candidates)) {
      this.#records.delete(id)
      return { outcome: 'consumed', code: record }
    }
    const attempts = record.attempts + 1
    if (attempts >= record.maxAttempts) {
      this.#records.delete(id)
      return { outcome: 'exhausted' }
    }
    this.#records.set(id, Object.freeze({ ...record, attempts }))
    return { outcome: 'mismatch', attemptsLeft: record.maxAttempts - attempts }
  }

  async revoke(request: RevokeCodesRequest): Promise<number> {
    const { accountId, purposes } = validateRevokeRequest(request)
    let removed = 0
    for (const [id, record] of this.#records) {
      if (record.accountId !== accountId) continue
      if (purposes !== undefined && !purposes.includes(record.purpose)) continue
      this.#records.delete(id)
      removed += 1
    }
    return removed
  }

  async sweep(request: SweepCodesRequest): Promise<number> {
    const { now, limit } = validateSweepRequest(request)
    return this.#purge(now, limit)
  }

  /** Removes every code of the account (for `MemoryAccountStore({ cascade })`); how many went. */
  deleteAccountData(accountId: string): number {
    let removed = 0
    for (const [id, record] of this.#records) {
      if (record.accountId !== accountId) continue
      this.#records.delete(id)
      removed += 1
    }
    return removed
  }

  /**
   * The sealed flow data of live codes (`MemoryEnvelopeInventory`): a code past its expiry can never be
   * consumed, so its payload is never opened again.
   */
  countEnvelopes(now: Date): readonly EnvelopeLocationCount[] {
    const tally = emptyTally()
    for (const record of this.#records.values()) {
      if (record.payload !== null && record.expiresAt.getTime() > now.getTime()) {
        tallyEnvelope(tally, record.payload)
      }
    }
    return [
      {
        location: 'one-time-codes.payload',
        holding: 'one-time-code',
        ...tally,
        method: 'in-memory codes, live ones only (a code past its expiry is never consumed)',
      },
    ]
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryOneTimeCodeStore { codes: ${this.#records.size} }`
  }

  #reserve(id: string, now: Date): void {
    if (this.#records.has(id) || this.#reserved.has(id)) throw duplicate()
    if (this.#records.size + this.#reserved.size >= this.#capacity) this.#purge(now, Number.POSITIVE_INFINITY)
    if (this.#records.size + this.#reserved.size >= this.#capacity) {
      throw new OneTimeCodeError(OneTimeCodeErrorCodes.unavailable, 'the code store is full')
    }
    this.#reserved.add(id)
  }

  #purge(now: Date, limit: number): number {
    let removed = 0
    for (const [id, record] of this.#records) {
      if (removed >= limit) break
      if (record.expiresAt.getTime() > now.getTime()) continue
      this.#records.delete(id)
      removed += 1
    }
    return removed
  }
}

function duplicate(): OneTimeCodeError {
  return new OneTimeCodeError(OneTimeCodeErrorCodes.duplicate, 'a code with this id is already stored')
}
