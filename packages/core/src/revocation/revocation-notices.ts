import type { RevocationNotice } from './notice.js'

/** What a cache does when told about revocations. Called synchronously; never throws back. */
export interface RevocationSubscriber {
  /** What the notice names was revoked: drop it. */
  revoked(notice: RevocationNotice): void
  /**
   * Notices may have been lost (the listener was away and is back, or an unreadable notice arrived):
   * drop everything cached. Always called before `trusted()` turns true again.
   */
  flush(): void
}

/**
 * Port: revocation notices shared by every instance of an application. Stores send a notice in the same
 * transaction as the change it describes (so a notice exists exactly when the change committed); each
 * instance delivers every notice, its own and every other instance's, to its subscribers (the session,
 * epoch and API-key caches), which drop what it names.
 *
 * A cache may answer from memory beyond its configured staleness bound only while `trusted()` is true:
 * the implementation can then vouch that every notice committed since the caches were last flushed has
 * been, or will within moments be, delivered. The Postgres implementation is trusted while its `LISTEN`
 * connection is up and answered its last heartbeat; the memory one always is.
 */
export interface RevocationNotices {
  /** Whether notices reach this instance now (checked on every cached read, so it is cheap). */
  trusted(): boolean
  /** Delivers every later notice (and every flush) to `subscriber`; returns the unsubscribe function. */
  subscribe(subscriber: RevocationSubscriber): () => void
  /**
   * Sends a notice to every instance, for stores that cannot send one inside their own transaction
   * (publish right after the change committed). Rejects when it could not be sent.
   */
  publish(notice: RevocationNotice): Promise<void>
}

/** Calls `deliver` for each subscriber; one that throws does not keep the notice from the others. */
export function deliverToEach(
  subscribers: Iterable<RevocationSubscriber>,
  deliver: (subscriber: RevocationSubscriber) => void,
): void {
  for (const subscriber of [...subscribers]) {
    try {
      deliver(subscriber)
    } catch {
      // A subscriber is a cache of this instance; its failure must not stop the others from evicting.
    }
  }
}
