import { CacheTrust } from '../revocation/cache-trust.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import type { ApiKeyRecord } from './api-key-record.js'

interface Entry {
  readonly record: ApiKeyRecord
  readonly readAt: number
}

function frozenCopy(record: ApiKeyRecord): ApiKeyRecord {
  const copy = structuredClone(record)
  const { restrictions } = copy
  for (const list of [
    restrictions.scopes,
    restrictions.roles,
    restrictions.capabilities,
    restrictions.teams,
  ]) {
    if (list !== undefined) Object.freeze(list)
  }
  if (restrictions.tenants !== undefined) {
    for (const roles of Object.values(restrictions.tenants)) Object.freeze(roles)
    Object.freeze(restrictions.tenants)
  }
  Object.freeze(restrictions)
  return Object.freeze(copy)
}

/**
 * The verified-lookup cache of `ApiKeyService`: records of keys that verified, keyed by the SHA-256 of the
 * presented key (never the key or its secret; the record holds only the store's HMAC digest), successes
 * only, bounded (the oldest entry makes room). Consulted only while the revocation notices are trusted;
 * an `api-key` notice evicts the key at once and a flush drops everything. A hit still checks the record's
 * expiry and rotation overlap against the clock.
 */
export class ApiKeyLookupCache {
  readonly #entries = new Map<string, Entry>()
  /** key id -> cache key: only the right secret verifies, so a key id has at most one entry. */
  readonly #byKeyId = new Map<string, string>()
  readonly #trust: CacheTrust
  readonly #maxEntries: number
  readonly #clock: () => number

  constructor(
    notices: RevocationNotices,
    options: { maxEntries: number; maxTtlMs: number; clock: () => number },
  ) {
    this.#trust = new CacheTrust(notices, 0, options.maxTtlMs)
    this.#maxEntries = options.maxEntries
    this.#clock = options.clock
    notices.subscribe({
      revoked: (notice) => {
        if (notice.kind !== 'api-key') return
        this.#trust.moved()
        this.#evict(notice.keyId)
      },
      flush: () => {
        this.#trust.moved()
        this.#entries.clear()
        this.#byKeyId.clear()
      },
    })
  }

  get size(): number {
    return this.#entries.size
  }

  /** Whether lookups may be answered from memory now (the notices are trusted). */
  get usable(): boolean {
    return this.#trust.listening
  }

  /** The generation to pass to `set` for a store read starting now. */
  get generation(): number {
    return this.#trust.generation
  }

  get(cacheKey: string): ApiKeyRecord | undefined {
    const entry = this.#entries.get(cacheKey)
    if (entry === undefined) return undefined
    if (this.#clock() >= entry.readAt + this.#trust.boundMs()) {
      this.#evict(entry.record.keyId)
      return undefined
    }
    return entry.record
  }

  /** Caches a verified record read at `readAt`, unless a notice arrived since `generation`. */
  set(cacheKey: string, record: ApiKeyRecord, readAt: number, generation: number): void {
    if (generation !== this.#trust.generation || this.#trust.boundMs() <= 0) return
    this.#evict(record.keyId)
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.values().next()
      if (oldest.done !== true) this.#evict(oldest.value.record.keyId)
    }
    this.#entries.set(cacheKey, { record: frozenCopy(record), readAt })
    this.#byKeyId.set(record.keyId, cacheKey)
  }

  #evict(keyId: string): void {
    const cacheKey = this.#byKeyId.get(keyId)
    if (cacheKey === undefined) return
    this.#byKeyId.delete(keyId)
    this.#entries.delete(cacheKey)
  }
}
