import { type SessionRecord, sessionRecord } from './session-store.js'

interface Entry {
  record: SessionRecord
  /** Believed until this time: the read time plus the staleness, never past the session's own expiry. */
  readonly until: number
}

/**
 * The per-instance session lookup cache, keyed by the session-id digest (the id itself is never held).
 * An entry is believed for at most `stalenessMs` after it was read from the store and never past the
 * session's idle or absolute expiry; a revocation on this instance removes it at once. Bounded: the oldest
 * entry makes room. `stalenessMs` 0 keeps nothing (strict mode).
 */
export class SessionCache {
  readonly #entries = new Map<string, Entry>()
  /** account id -> digests cached for it, so revoking an account's sessions clears them all. */
  readonly #byAccount = new Map<string, Set<string>>()
  readonly #stalenessMs: number
  readonly #maxEntries: number

  constructor(stalenessMs: number, maxEntries: number) {
    this.#stalenessMs = stalenessMs
    this.#maxEntries = maxEntries
  }

  get enabled(): boolean {
    return this.#stalenessMs > 0
  }

  get size(): number {
    return this.#entries.size
  }

  /** The cached live session, or undefined (absent, too old, or expired at `now`). */
  get(digest: string, now: number): SessionRecord | undefined {
    const entry = this.#entries.get(digest)
    if (entry === undefined) return undefined
    if (now >= entry.until || now >= entry.record.idleExpiresAt.getTime()) {
      this.delete(digest)
      return undefined
    }
    return entry.record
  }

  set(record: SessionRecord, readAt: number): void {
    if (!this.enabled) return
    const until = Math.min(readAt + this.#stalenessMs, record.absoluteExpiresAt.getTime())
    if (until <= readAt) return
    this.delete(record.digest)
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.delete(oldest.value)
    }
    this.#entries.set(record.digest, { record, until })
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
}
