import type { CacheTrust } from '../../revocation/cache-trust.js'
import { handleCarriesTags } from '../provider-session.js'
import { type SessionRecord, sessionRecord } from './session-store.js'

interface Entry {
  record: SessionRecord
  /** When the store answered (or this instance wrote) the record. */
  readonly readAt: number
}

/**
 * The per-instance session lookup cache, keyed by the session-id digest (the id itself is never held).
 * An entry is believed for `trust.boundMs()` after it was read (the long safety bound while revocation
 * notices are trusted, else the staleness setting) and never past the session's idle or absolute expiry;
 * a revocation on this instance, or a notice from any instance, removes it at once. Bounded: the oldest
 * entry makes room. Nothing is cached while nothing may be believed (strict mode without notices).
 */
export class SessionCache {
  readonly #entries = new Map<string, Entry>()
  /** account id -> digests cached for it, so revoking an account's sessions clears them all. */
  readonly #byAccount = new Map<string, Set<string>>()
  readonly #trust: CacheTrust
  readonly #maxEntries: number

  constructor(trust: CacheTrust, maxEntries: number) {
    this.#trust = trust
    this.#maxEntries = maxEntries
  }

  get size(): number {
    return this.#entries.size
  }

  /** The cached live session, or undefined (absent, believed no longer, or expired at `now`). */
  get(digest: string, now: number): SessionRecord | undefined {
    const entry = this.#entries.get(digest)
    if (entry === undefined) return undefined
    const { record } = entry
    if (
      now >= entry.readAt + this.#trust.boundMs() ||
      now >= record.idleExpiresAt.getTime() ||
      now >= record.absoluteExpiresAt.getTime()
    ) {
      this.delete(digest)
      return undefined
    }
    return record
  }

  /**
   * Caches a record read (or written) at `readAt`, unless the caches' generation moved since `generation`
   * (a notice arrived while the read was in flight) or nothing may be believed now.
   */
  set(record: SessionRecord, readAt: number, generation: number): void {
    if (generation !== this.#trust.generation || this.#trust.boundMs() <= 0) return
    if (record.absoluteExpiresAt.getTime() <= readAt) return
    this.delete(record.digest)
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.delete(oldest.value)
    }
    this.#entries.set(record.digest, { record, readAt })
    let digests = this.#byAccount.get(record.accountId)
    if (digests === undefined) {
      digests = new Set()
      this.#byAccount.set(record.accountId, digests)
    }
    digests.add(record.digest)
  }

  /** After a successful renewal: the new times, keeping the entry's read time. */
  renewed(digest: string, lastSeenAt: Date, idleExpiresAt: Date): void {
    const entry = this.#entries.get(digest)
    if (entry === undefined) return
    const record = entry.record
    entry.record = sessionRecord({
      ...record,
      lastSeenAt: new Date(Math.max(record.lastSeenAt.getTime(), lastSeenAt.getTime())),
      idleExpiresAt: new Date(Math.max(record.idleExpiresAt.getTime(), idleExpiresAt.getTime())),
    })
  }

  delete(digest: string): void {
    const entry = this.#entries.get(digest)
    if (entry === undefined) return
    this.#entries.delete(digest)
    const digests = this.#byAccount.get(entry.record.accountId)
    digests?.delete(digest)
    if (digests?.size === 0) this.#byAccount.delete(entry.record.accountId)
  }

  /** Drops the account's session with this handle. */
  deleteHandle(accountId: string, handle: string): void {
    for (const digest of [...(this.#byAccount.get(accountId) ?? [])]) {
      if (this.#entries.get(digest)?.record.handle === handle) this.delete(digest)
    }
  }

  /** Drops every cached session of the account, except `keep`. */
  deleteAccount(accountId: string, keep?: string): void {
    for (const digest of [...(this.#byAccount.get(accountId) ?? [])]) {
      if (digest !== keep) this.delete(digest)
    }
  }

  /** Drops every cached session whose handle contains each of `tags`. */
  clearTagged(tags: readonly string[]): void {
    for (const [digest, entry] of [...this.#entries]) {
      if (handleCarriesTags(entry.record.handle, tags)) this.delete(digest)
    }
  }

  /** Drops everything (notices may have been lost). */
  clear(): void {
    this.#entries.clear()
    this.#byAccount.clear()
  }
}
