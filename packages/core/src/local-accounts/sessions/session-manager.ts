import type { Impersonator } from '../../authentication/principal.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import type { EpochVerdict } from '../epoch-cache.js'
import { invalidLocalInput } from '../errors.js'
import { digestOpaqueToken, newOpaqueToken } from '../opaque-token.js'
import { defined, type LocalRuntime } from '../runtime.js'
import type { SessionRevocationReason } from '../security-events.js'
import { redactedSignIn, type SessionSignIn } from '../sign-in.js'
import { MAX_SESSION_USER_AGENT_LENGTH } from '../store-input.js'
import { csrfTokenForSession } from './csrf.js'
import { SessionCache } from './session-cache.js'
import { type SessionCookie, serializeSessionCookie } from './session-cookie.js'
import {
  isSessionLive,
  type SessionRecord,
  type SessionStore,
  type SessionWithAccountEpoch,
} from './session-store.js'

/** The verdict on a presented session id. */
export type SessionCheck =
  | { readonly kind: 'live'; readonly session: SessionRecord }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly retryAfterSeconds?: number }

const SESSION_ID_BYTES = 32
const HANDLE_BYTES = 16
const UNSTORABLE = /[\p{Cc}\p{Cs}]/gu

/** A user agent as a store keeps it: no control characters or lone surrogates, at most 512 UTF-16 units. */
function storableUserAgent(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  let kept = ''
  for (const char of value.replace(UNSTORABLE, '')) {
    if (kept.length + char.length > MAX_SESSION_USER_AGENT_LENGTH) break
    kept += char
  }
  return kept === '' ? undefined : kept
}

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
 * Server-side sessions: creation with id rotation, the per-request check (lookup cache, security epoch,
 * sliding renewal), listing and revocation. The store only ever sees digests of session ids.
 */
export class SessionManager {
  readonly cookie: SessionCookie
  readonly #store: SessionStore
  /** The store's one-statement read of a session and its account's epoch, when it has one. */
  readonly #joined: ((digest: string, now: Date) => Promise<SessionWithAccountEpoch | null>) | undefined
  readonly #runtime: LocalRuntime
  readonly #cache: SessionCache
  /** digest -> the session's account and epoch (immutable facts, so they never go stale). Bounded. */
  readonly #known = new Map<string, SessionFacts>()
  /** Digests with a renewal write in flight (at most one per session per instance). */
  readonly #renewing = new Set<string>()

  constructor(store: SessionStore, cookie: SessionCookie, runtime: LocalRuntime) {
    this.cookie = cookie
    this.#store = store
    this.#joined =
      typeof store.getWithAccountEpoch === 'function' ? store.getWithAccountEpoch.bind(store) : undefined
    this.#runtime = runtime
    this.#cache = new SessionCache(runtime.trust, runtime.settings.maxCachedSessions)
  }

  /** Sessions held by this instance's lookup cache. */
  get cachedSessions(): number {
    return this.#cache.size
  }

  /**
   * Creates a session for the account at its current epoch. `replaces` (the session id the request
   * carried) is deleted in the same store transaction, so an id planted before sign-in never becomes
   * a signed-in session (no fixation).
   */
  async create(request: {
    readonly accountId: string
    readonly securityEpoch: number
    readonly replaces?: string | undefined
    readonly clientAddress?: string | undefined
    readonly userAgent?: string | undefined
    /** Tags the handle starts with (`providerSessionTags`), so a back-channel logout can name it. */
    readonly handleTags?: readonly string[] | undefined
    /** An absolute expiry earlier than the configured one (a short-lived session); must be in the future. */
    readonly expiresAt?: Date | undefined
    /** The active organization a rotated session keeps. */
    readonly activeOrganizationId?: string | undefined
  }): Promise<SessionSignIn> {
    const { settings, random } = this.#runtime
    const sessionId = newOpaqueToken(SESSION_ID_BYTES, random)
    const handle = `${(request.handleTags ?? []).join('')}${newOpaqueToken(HANDLE_BYTES, random)}`
    const now = this.#runtime.clock()
    const bound = request.expiresAt?.getTime()
    const absolute = Math.min(now + settings.absoluteMs, bound ?? Number.POSITIVE_INFINITY)
    if (!(absolute > now)) throw invalidLocalInput('expiresAt must be a valid instant in the future')
    const session: SessionRecord = {
      digest: digestOpaqueToken(sessionId),
      handle,
      accountId: request.accountId,
      securityEpoch: request.securityEpoch,
      createdAt: new Date(now),
      lastSeenAt: new Date(now),
      idleExpiresAt: new Date(Math.min(now + settings.idleMs, absolute)),
      absoluteExpiresAt: new Date(absolute),
      ...defined({
        userAgent: storableUserAgent(request.userAgent),
        clientAddress: request.clientAddress,
        activeOrganizationId: request.activeOrganizationId,
      }),
    }
    const replaced = request.replaces === undefined ? undefined : digestOpaqueToken(request.replaces)
    const generation = this.#runtime.trust.generation
    await this.#store.create({ session, ...(replaced === undefined ? {} : { replaces: replaced }) })
    if (replaced !== undefined) this.#cache.delete(replaced)
    this.#cache.set(session, now, generation)
    this.#runtime.emit(
      'session.created',
      defined({
        accountId: request.accountId,
        sessionHandle: handle,
        clientAddress: request.clientAddress,
        userAgent: session.userAgent,
      }),
    )
    return redactedSignIn(
      {
        transport: 'session',
        accountId: request.accountId,
        sessionId,
        handle,
        setCookie: serializeSessionCookie(this.cookie, sessionId),
        csrfToken: csrfTokenForSession(sessionId),
        expiresAt: new Date(absolute),
      },
      ['sessionId', 'setCookie', 'csrfToken'],
    )
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

  /** A notice named this session (revoked on some instance): drop it from the cache. */
  evict(digest: string): void {
    this.#cache.delete(digest)
  }

  /** A notice named this account (epoch moved, sessions revoked): drop every cached session of it. */
  evictAccount(accountId: string): void {
    this.#cache.deleteAccount(accountId)
  }

  /** Notices may have been lost: drop every cached session. */
  flush(): void {
    this.#cache.clear()
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

  /** The account's live sessions, oldest first. */
  async list(accountId: string): Promise<readonly SessionRecord[]> {
    return this.#store.list({ accountId, now: new Date(this.#runtime.clock()) })
  }

  /** Ends the session with this id (sign-out); false when it was not stored any more. */
  async revokeById(
    session: SessionRecord,
    reason: SessionRevocationReason,
    clientAddress?: string,
  ): Promise<boolean> {
    this.#cache.delete(session.digest)
    const removed = (await this.#store.revoke({ digest: session.digest })) > 0
    if (removed) this.#revoked(session.accountId, session.handle, reason, clientAddress)
    return removed
  }

  /** Ends the account's session with this handle; false for an unknown handle. */
  async revokeByHandle(
    accountId: string,
    handle: string,
    reason: SessionRevocationReason,
    clientAddress?: string,
    impersonator?: Impersonator,
  ): Promise<boolean> {
    this.#cache.deleteHandle(accountId, handle)
    const removed = (await this.#store.revoke({ accountId, handle })) > 0
    if (removed) this.#revoked(accountId, handle, reason, clientAddress, impersonator)
    return removed
  }

  /** Ends every session of the account except `keepSessionId`; one event per session ended. */
  async revokeAccount(
    accountId: string,
    reason: SessionRevocationReason,
    options: {
      readonly keep?: SessionRecord | undefined
      readonly clientAddress?: string | undefined
      readonly impersonator?: Impersonator | undefined
    } = {},
  ): Promise<number> {
    const keep = options.keep?.digest
    this.#cache.deleteAccount(accountId, keep)
    const live = await this.list(accountId)
    const removed = await this.#store.revoke({
      accountId,
      all: true,
      ...(keep === undefined ? {} : { exceptDigest: keep }),
    })
    for (const session of live) {
      if (session.digest !== keep) {
        this.#revoked(accountId, session.handle, reason, options.clientAddress, options.impersonator)
      }
    }
    return removed
  }

  /**
   * Ends every session, of any account, whose handle carries all of `tags` (a back-channel logout). The
   * store announces each one, so every instance's cache drops it; this instance's cache is flushed of
   * them by its own notices, or at once when it has none (the entries are unknown here).
   */
  async revokeTagged(tags: readonly string[]): Promise<number> {
    const removed = await this.#store.revoke({ handleTags: tags })
    if (removed > 0) {
      this.#runtime.trust.moved()
      this.#cache.clearTagged(tags)
    }
    return removed
  }

  /**
   * Sets (or with `null` clears) the active organization of the account's session with this handle; the
   * caller has checked the membership. This instance drops the cached record at once (and a read in
   * flight is not cached over it); the store's `session` notice drops it on every other instance. False
   * when the session is gone. A store without `setActiveOrganization` is a configuration error.
   */
  async setActiveOrganization(
    accountId: string,
    handle: string,
    organizationId: string | null,
  ): Promise<boolean> {
    const set = this.#store.setActiveOrganization
    if (typeof set !== 'function') {
      throw new ConfigurationError(
        'local.active_organization_unsupported',
        'this session store cannot keep an active organization (setActiveOrganization)',
      )
    }
    this.#cache.deleteHandle(accountId, handle)
    const now = new Date(this.#runtime.clock())
    const changed = await set.call(this.#store, { accountId, handle, organizationId, now })
    this.#runtime.trust.moved()
    this.#cache.deleteHandle(accountId, handle)
    return changed
  }

  /** Forgets a cached session (after a rotation elsewhere in this instance). */
  forget(sessionId: string): void {
    this.#cache.delete(digestOpaqueToken(sessionId))
  }

  /** Whether a record is live now (for callers holding one). */
  isLive(session: SessionRecord): boolean {
    return isSessionLive(session, new Date(this.#runtime.clock()))
  }

  #revoked(
    accountId: string,
    sessionHandle: string,
    reason: SessionRevocationReason,
    clientAddress?: string,
    impersonator?: Impersonator,
  ): void {
    this.#runtime.emit(
      'session.revoked',
      defined({
        accountId,
        sessionHandle,
        reason,
        clientAddress,
        actorId: impersonator?.accountId,
        impersonationId: impersonator?.impersonationId,
      }),
    )
  }
}
