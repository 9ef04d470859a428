import { Buffer } from 'node:buffer'
import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError, InvalidInputError } from '../../errors/portcullis-error.js'
import { type EnvelopeLocationCount, emptyTally, tallyEnvelope } from '../../protection/inventory.js'
import type { EnvelopeCounting } from '../../protection/memory-inventory.js'
import type { OAuthTransactionProtector } from '../../protection/protector.js'
import { OAuthTransactionStoreError } from './errors.js'
import { openOAuthTransaction, type SealedOAuthTransaction, sealOAuthTransaction } from './sealing.js'
import type { OAuthTransactionStore } from './store.js'
import {
  isLabel,
  OAuthTransaction,
  type OAuthTransactionKey,
  TRANSACTION_DIGEST_BYTES,
} from './transaction.js'

export interface MemoryOAuthTransactionStoreOptions {
  /** Required: the verifier and nonce are kept only as envelopes. */
  readonly protector: OAuthTransactionProtector
  /** Most transactions held at once (default 1024); expired ones are purged before refusing a write. */
  readonly capacity?: number
  /** Clock used to purge expired transactions when the store is full; defaults to the system clock. */
  readonly clock?: () => Date
}

const STORE_OPTIONS: OptionsShape<MemoryOAuthTransactionStoreOptions> = {
  protector: { required: true, kind: 'object', code: 'oauth.transaction_store.protector_required' },
  capacity: { kind: 'number', code: 'oauth.transaction_store.capacity_invalid' },
  clock: { kind: 'function', code: 'oauth.transaction_store.clock_invalid' },
}

function isProtector(value: unknown): value is OAuthTransactionProtector {
  const candidate = value as Partial<OAuthTransactionProtector> | null | undefined
  return (
    typeof candidate?.protect === 'function' &&
    typeof candidate.unprotect === 'function' &&
    typeof candidate.activeKeyVersion === 'string'
  )
}

function mapKey(key: OAuthTransactionKey): string {
  const { stateDigest, bindingDigest, provider } = key as Partial<OAuthTransactionKey>
  const isDigest = (value: unknown): value is Uint8Array =>
    value instanceof Uint8Array && value.byteLength === TRANSACTION_DIGEST_BYTES
  if (!isDigest(stateDigest) || !isDigest(bindingDigest) || !isLabel(provider, 128)) {
    throw new InvalidInputError(
      'oauth.transaction.key_invalid',
      'transaction key must hold two 32-byte digests and a provider',
    )
  }
  // Fixed-width hex digests first, so the provider suffix cannot shift the boundaries.
  return `${Buffer.from(stateDigest).toString('hex')}${Buffer.from(bindingDigest).toString('hex')}${provider}`
}

function validTime(value: unknown, what: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new InvalidInputError('oauth.transaction.time_invalid', `${what} must be a valid Date`)
  }
  return value
}

/**
 * In-process reference `OAuthTransactionStore` for a single instance and for tests. Consume is atomic
 * because the lookup and the delete happen in one synchronous step; decryption happens afterwards, so
 * a record that fails to open is burned rather than left for another try.
 */
export class MemoryOAuthTransactionStore implements OAuthTransactionStore, EnvelopeCounting {
  readonly capacity: number
  readonly #protector: OAuthTransactionProtector
  readonly #clock: () => Date
  readonly #records = new Map<string, SealedOAuthTransaction>()

  constructor(options: MemoryOAuthTransactionStoreOptions) {
    readOptions(options, 'MemoryOAuthTransactionStore', STORE_OPTIONS)
    if (!isProtector(options.protector)) {
      throw new ConfigurationError(
        'oauth.transaction_store.protector_required',
        'MemoryOAuthTransactionStore requires an OAuthTransactionProtector',
      )
    }
    const capacity = options.capacity ?? 1024
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new ConfigurationError(
        'oauth.transaction_store.capacity_invalid',
        'capacity must be a positive integer',
      )
    }
    const clock = options.clock ?? (() => new Date())
    if (typeof clock !== 'function') {
      throw new ConfigurationError(
        'oauth.transaction_store.clock_invalid',
        'clock must be a function returning a Date',
      )
    }
    this.#protector = options.protector
    this.capacity = capacity
    this.#clock = clock
  }

  /** Transactions currently held, expired ones included until they are purged. */
  get size(): number {
    return this.#records.size
  }

  async create(transaction: OAuthTransaction): Promise<void> {
    if (!(transaction instanceof OAuthTransaction)) {
      throw new InvalidInputError('oauth.transaction.record_invalid', 'create expects an OAuthTransaction')
    }
    const key = mapKey(transaction)
    this.#assertAbsent(key)
    const sealed = await sealOAuthTransaction(this.#protector, transaction)
    // Everything below is synchronous: the checks and the insert cannot interleave with another create.
    this.#assertAbsent(key)
    if (this.#records.size >= this.capacity) this.#purgeExpired(validTime(this.#clock(), 'clock()'))
    if (this.#records.size >= this.capacity) {
      throw new OAuthTransactionStoreError(
        'oauth.transaction_store.full',
        'unavailable',
        'transaction store is full',
      )
    }
    this.#records.set(key, sealed)
  }

  async consume(key: OAuthTransactionKey, now: Date): Promise<OAuthTransaction | null> {
    const id = mapKey(key)
    const at = validTime(now, 'now')
    const sealed = this.#records.get(id)
    if (sealed === undefined) return null
    this.#records.delete(id)
    if (at.getTime() >= sealed.expiresAt.getTime()) return null
    return openOAuthTransaction(this.#protector, sealed)
  }

  /**
   * The at-rest form (digests, routing fields and envelopes), for conformance inspection and debugging.
   * It holds no recoverable secret without the protector.
   */
  storedForm(): readonly SealedOAuthTransaction[] {
    return [...this.#records.values()]
  }

  /**
   * The PKCE-verifier and nonce envelopes of live transactions (`MemoryEnvelopeInventory`). A transaction
   * at or past its expiry is left out: it can never be consumed, so its envelopes can never be opened.
   */
  countEnvelopes(now: Date): readonly EnvelopeLocationCount[] {
    const at = validTime(now, 'now').getTime()
    const verifiers = emptyTally()
    const nonces = emptyTally()
    for (const record of this.#records.values()) {
      if (at >= record.expiresAt.getTime()) continue
      tallyEnvelope(verifiers, record.pkceVerifier)
      if (record.nonce !== null) tallyEnvelope(nonces, record.nonce)
    }
    const method = 'in-memory transactions not yet expired'
    return [
      { location: 'oauth-transactions.pkceVerifier', holding: 'oauth-transaction', ...verifiers, method },
      { location: 'oauth-transactions.nonce', holding: 'oauth-transaction', ...nonces, method },
    ]
  }

  #assertAbsent(key: string): void {
    if (this.#records.has(key)) {
      throw new OAuthTransactionStoreError(
        'oauth.transaction_store.duplicate',
        'conflict',
        'a transaction with this key already exists',
      )
    }
  }

  #purgeExpired(now: Date): void {
    for (const [key, record] of this.#records) {
      if (now.getTime() >= record.expiresAt.getTime()) this.#records.delete(key)
    }
  }
}
