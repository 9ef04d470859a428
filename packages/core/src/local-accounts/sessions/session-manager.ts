import type { Impersonator } from '../../authentication/principal.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { invalidLocalInput } from '../errors.js'
import { digestOpaqueToken, newOpaqueToken } from '../opaque-token.js'
import { defined, type LocalRuntime } from '../runtime.js'
import type { SessionRevocationReason } from '../security-events.js'
import { redactedSignIn, type SessionSignIn } from '../sign-in.js'
import { MAX_SESSION_USER_AGENT_LENGTH } from '../store-input.js'
import { csrfTokenForSession } from './csrf.js'
import { SessionCache } from './session-cache.js'
import { type SessionCheck, SessionChecker } from './session-check.js'
import { type SessionCookie, serializeSessionCookie } from './session-cookie.js'
import { isSessionLive, type SessionRecord, type SessionStore } from './session-store.js'

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

/**
 * Server-side sessions: creation with id rotation, the per-request check (`SessionChecker`), listing and
 * revocation. The store only ever sees digests of session ids.
 */
export class SessionManager {
  readonly cookie: SessionCookie
  readonly #store: SessionStore
  readonly #runtime: LocalRuntime
  readonly #cache: SessionCache
  readonly #checker: SessionChecker

  constructor(store: SessionStore, cookie: SessionCookie, runtime: LocalRuntime) {
    this.cookie = cookie
    this.#store = store
    this.#runtime = runtime
    this.#cache = new SessionCache(runtime.trust, runtime.settings.maxCachedSessions)
    this.#checker = new SessionChecker(store, this.#cache, runtime)
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
   * `SessionCache`, else read from the store) whose epoch is the account's current one (`SessionChecker`).
   */
  check(sessionId: string): SessionCheck | Promise<SessionCheck> {
    return this.#checker.check(sessionId)
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
