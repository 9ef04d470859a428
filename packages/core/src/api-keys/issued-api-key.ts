import type { ApiKeyRecord } from './api-key-record.js'

const inspect = Symbol.for('nodejs.util.inspect.custom')

/**
 * A freshly issued key. `value` is the only copy of the raw key anywhere: hand it to the client once.
 * `inspect`, `toString` and JSON show the key id but never the value.
 */
export class IssuedApiKey {
  readonly keyId: string
  readonly ownerId: string
  readonly createdAt: Date
  readonly expiresAt: Date | undefined
  readonly #value: string

  constructor(record: ApiKeyRecord, value: string) {
    this.keyId = record.keyId
    this.ownerId = record.ownerId
    this.createdAt = record.createdAt
    this.expiresAt = record.expiresAt
    this.#value = value
  }

  /** The raw key, `<prefix>_<keyId>_<secret>`. */
  get value(): string {
    return this.#value
  }

  toJSON(): { keyId: string; ownerId: string; value: '[redacted]' } {
    return { keyId: this.keyId, ownerId: this.ownerId, value: '[redacted]' }
  }

  toString(): string {
    return `IssuedApiKey(${this.keyId})`
  }

  [inspect](): string {
    return `IssuedApiKey { keyId: ${JSON.stringify(this.keyId)}, ownerId: ${JSON.stringify(this.ownerId)}, value: [redacted] }`
  }
}
