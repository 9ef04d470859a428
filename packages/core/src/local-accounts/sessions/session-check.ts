import type { EpochVerdict } from '../epoch-cache.js'
import { digestOpaqueToken } from '../opaque-token.js'
import type { LocalRuntime } from '../runtime.js'
import type { SessionCache } from './session-cache.js'
import type { SessionRecord, SessionStore, SessionWithAccountEpoch } from './session-store.js'

/** The verdict on a presented session id. */
export type SessionCheck =
  | { readonly kind: 'live'; readonly session: SessionRecord }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly retryAfterSeconds?: number }

const invalid = (reason: string): SessionCheck => ({ kind: 'invalid', reason })

/** A failed store read: unavailable, with the store's own retry hint when its error carries one. */
function storeFailed(error: unknown): SessionCheck {
  const seconds = (error as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0
    ? { kind: 'unavailable', reason: 'session: store failed', retryAfterSeconds: seconds }
    : { kind: 'unavailable', reason: 'session: store failed' }
}

/** What never changes about a session: whose it is and the epoch it was created at. */
interface SessionFacts {
  readonly accountId: string
  readonly securityEpoch: number
}

/**
 * The per-request check of a presented session id: the lookup cache (shared with the session manager,
 * which writes and evicts it), the security epoch, and sliding renewal in the background.
 */
export class SessionChecker {
  readonly #store: SessionStore
  /** The store's one-statement read of a session and its account's epoch, when it has one. */
  readonly #joined: ((digest: string, now: Date) => Promise<SessionWithAccountEpoch | null>) | undefined
  readonly #runtime: LocalRuntime
  readonly #cache: SessionCache
  /** digest -> the session's account and epoch (immutable facts, so they never go stale). Bounded. */
  readonly #known = new Map<string, SessionFacts>()
  /** Digests with a renewal write in flight (at most one per session per instance). */
  readonly #renewing = new Set<string>()

  constructor(store: SessionStore, cache: SessionCache, runtime: LocalRuntime) {
    this.#store = store
    this.#joined =
      typeof store.getWithAccountEpoch === 'function' ? store.getWithAccountEpoch.bind(store) : undefined
    this.#runtime = runtime
    this.#cache = cache
  }

  /**
   * The per-request check of a presented session id: a live session (cached while believed, see
   * `SessionCache`, else read from the store) whose epoch is the account's current one. Renews the idle
   * expiry in the background at most once per renewal interval. Synchronous on a cache hit with a cached
   * epoch. A store that reads the session and its account's epoch in one statement is read that way.
   */
  check(sessionId: string): SessionCheck | Promise<SessionCheck> {
    const digest = digestOpaqueToken(sessionId)
    const now = this.#runtime.clock()
    const cached = this.#cache.get(digest, now)
    if (cached !== undefined) return this.#decide(cached, now, this.#verifyEpoch(cached))
    const generation = this.#runtime.trust.generation
    if (this.#joined !== undefined) return this.#checkJoined(this.#joined, digest, now, generation)
    // A session's account and epoch never change: when this instance saw the session before, the epoch
    // check runs beside the store read instead of after it (strict mode reads both on every request).
    const known = this.#known.get(digest)
    const early = known === undefined ? undefined : this.#verifyEpoch(known)
    return this.#store.get(digest, new Date(now)).then((session) => {
      if (session === null) {
        this.#known.delete(digest)
        return invalid('session: unknown or expired')
      }
      this.#cache.set(session, now, generation)
      this.#remember(session)
      const sameFacts =
        known !== undefined &&
        known.accountId === session.accountId &&
        known.securityEpoch === session.securityEpoch
      return this.#decide(session, now, sameFacts && early !== undefined ? early : this.#verifyEpoch(session))
    }, storeFailed)
  }

  /** One statement: the session and its account's current epoch, which settles the epoch check too. */
  #checkJoined(
    read: (digest: string, now: Date) => Promise<SessionWithAccountEpoch | null>,
    digest: string,
    now: number,
    generation: number,
  ): Promise<SessionCheck> {
    return read(digest, new Date(now)).then((found) => {
      if (found === null) return invalid('session: unknown or expired')
      const { session, accountEpoch } = found
      this.#cache.set(session, now, generation)
      if (accountEpoch !== null) this.#runtime.epochs.remember(session.accountId, accountEpoch, generation)
      const verdict: EpochVerdict =
        accountEpoch === null
          ? 'unknown-account'
          : accountEpoch === session.securityEpoch
            ? 'current'
            : 'stale'
      return this.#decide(session, now, verdict)
    }, storeFailed)
  }

  /** The epoch verdict, never throwing or rejecting (`unavailable` instead). */
  #verifyEpoch(facts: SessionFacts): EpochVerdict | 'unavailable' | Promise<EpochVerdict | 'unavailable'> {
    try {
      const verdict = this.#runtime.epochs.verify(facts.accountId, facts.securityEpoch)
      return typeof verdict === 'string' ? verdict : verdict.catch(() => 'unavailable' as const)
    } catch {
      return 'unavailable'
    }
  }

  #decide(
    session: SessionRecord,
    now: number,
    verdict: EpochVerdict | 'unavailable' | Promise<EpochVerdict | 'unavailable'>,
  ): SessionCheck | Promise<SessionCheck> {
    // no closure on the common path: a cached session with a cached epoch settles synchronously
    if (typeof verdict === 'string') return this.#settle(session, now, verdict)
    return verdict.then((epoch) => this.#settle(session, now, epoch))
  }

  #settle(session: SessionRecord, now: number, epoch: EpochVerdict | 'unavailable'): SessionCheck {
    if (epoch === 'unavailable') return { kind: 'unavailable', reason: 'session: account store failed' }
    if (epoch !== 'current') {
      this.#discard(session)
      return invalid(epoch === 'stale' ? 'session: security epoch moved' : 'session: account is gone')
    }
    this.#renew(session, now)
    return { kind: 'live', session }
  }

  #remember(session: SessionRecord): void {
    if (this.#known.has(session.digest)) return
    if (this.#known.size >= this.#runtime.settings.maxCachedSessions) {
      const oldest = this.#known.keys().next()
      if (oldest.done !== true) this.#known.delete(oldest.value)
    }
    this.#known.set(session.digest, { accountId: session.accountId, securityEpoch: session.securityEpoch })
  }

  /** A stale session is deleted in the background; its cookie is already refused. */
  #discard(session: SessionRecord): void {
    this.#cache.delete(session.digest)
    this.#store.revoke({ digest: session.digest }).catch(() => {})
  }

  /** Sliding renewal: one store write per session per renewal interval, never awaited by the request. */
  #renew(session: SessionRecord, now: number): void {
    const { renewMs, idleMs } = this.#runtime.settings
    if (now - session.lastSeenAt.getTime() < renewMs) return
    const idle = Math.min(now + idleMs, session.absoluteExpiresAt.getTime())
    if (idle <= now || idle <= session.idleExpiresAt.getTime()) return
    if (this.#renewing.has(session.digest)) return
    this.#renewing.add(session.digest)
    const lastSeenAt = new Date(now)
    const idleExpiresAt = new Date(idle)
    this.#store
      .touch({ digest: session.digest, lastSeenAt, idleExpiresAt })
      .then(
        (live) => {
          if (live) this.#cache.renewed(session.digest, lastSeenAt, idleExpiresAt)
          else this.#cache.delete(session.digest)
        },
        () => {},
      )
      .finally(() => this.#renewing.delete(session.digest))
  }
}
