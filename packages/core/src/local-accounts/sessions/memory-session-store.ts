import { duplicateRecord } from '../store-errors.js'
import {
  type CreateSessionRequest,
  isSessionLive,
  type ListSessionsRequest,
  type RevokeSessionsRequest,
  type SessionRecord,
  type SessionStore,
  sessionRecord,
  type TouchSessionRequest,
  validateCreateSession,
  validateGetSession,
  validateListSessions,
  validateRevokeSessions,
  validateTouchSession,
} from './session-store.js'

const SWEEP_AT_LEAST = 1024

/**
 * In-memory `SessionStore` for tests and single-process development. Each operation validates its
 * input, then reads and writes in one synchronous step. Expired sessions are dropped when the store
 * has doubled in size since the last sweep.
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, SessionRecord>()
  /** account id -> handle -> digest */
  readonly #handles = new Map<string, Map<string, string>>()
  #sweepAt = SWEEP_AT_LEAST

  async create(request: CreateSessionRequest): Promise<void> {
    const { session, replaces } = validateCreateSession(request)
    if (this.#sessions.has(session.digest)) throw duplicateRecord('a session with this digest')
    const handles = this.#handles.get(session.accountId)
    const holder = handles?.get(session.handle)
    if (holder !== undefined && holder !== replaces) throw duplicateRecord('a session with this handle')
    if (replaces !== undefined) this.#delete(replaces)
    this.#sessions.set(session.digest, session)
    this.#handlesOf(session.accountId).set(session.handle, session.digest)
    if (this.#sessions.size >= this.#sweepAt) this.#sweep(session.lastSeenAt)
  }

  async get(digest: string, now: Date): Promise<SessionRecord | null> {
    const key = validateGetSession(digest, now)
    const session = this.#sessions.get(key.digest)
    return session !== undefined && isSessionLive(session, key.now) ? sessionRecord(session) : null
  }

  async touch(request: TouchSessionRequest): Promise<boolean> {
    const { digest, lastSeenAt, idleExpiresAt } = validateTouchSession(request)
    const session = this.#sessions.get(digest)
    if (session === undefined || !isSessionLive(session, lastSeenAt)) return false
    const idle = Math.max(
      session.idleExpiresAt.getTime(),
      Math.min(idleExpiresAt.getTime(), session.absoluteExpiresAt.getTime()),
    )
    const seen = Math.max(session.lastSeenAt.getTime(), lastSeenAt.getTime())
    this.#sessions.set(
      digest,
      sessionRecord({ ...session, lastSeenAt: new Date(seen), idleExpiresAt: new Date(idle) }),
    )
    return true
  }

  async list(request: ListSessionsRequest): Promise<readonly SessionRecord[]> {
    const { accountId, now } = validateListSessions(request)
    const live: SessionRecord[] = []
    for (const digest of this.#handles.get(accountId)?.values() ?? []) {
      const session = this.#sessions.get(digest)
      if (session !== undefined && isSessionLive(session, now)) live.push(sessionRecord(session))
    }
    return live.sort(
      (a, b) =>
        a.createdAt.getTime() - b.createdAt.getTime() ||
        (a.handle < b.handle ? -1 : a.handle > b.handle ? 1 : 0),
    )
  }

  async revoke(request: RevokeSessionsRequest): Promise<number> {
    const target = validateRevokeSessions(request)
    if (target.by === 'digest') return this.#delete(target.digest) ? 1 : 0
    const handles = this.#handles.get(target.accountId)
    if (handles === undefined) return 0
    if (target.by === 'handle') {
      const digest = handles.get(target.handle)
      return digest !== undefined && this.#delete(digest) ? 1 : 0
    }
    let removed = 0
    for (const digest of [...handles.values()]) {
      if (digest !== target.exceptDigest && this.#delete(digest)) removed += 1
    }
    return removed
  }

  /**
   * Removes every session of the account at once (for `MemoryAccountStore({ cascade })`: an account
   * deletion takes its sessions in the same step). How many went.
   */
  deleteAccountData(accountId: string): number {
    const digests = [...(this.#handles.get(accountId)?.values() ?? [])]
    return digests.filter((digest) => this.#delete(digest)).length
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemorySessionStore { sessions: ${this.#sessions.size} }`
  }

  #handlesOf(accountId: string): Map<string, string> {
    let handles = this.#handles.get(accountId)
    if (handles === undefined) {
      handles = new Map()
      this.#handles.set(accountId, handles)
    }
    return handles
  }

  #delete(digest: string): boolean {
    const session = this.#sessions.get(digest)
    if (session === undefined) return false
    this.#sessions.delete(digest)
    const handles = this.#handles.get(session.accountId)
    handles?.delete(session.handle)
    if (handles?.size === 0) this.#handles.delete(session.accountId)
    return true
  }

  #sweep(now: Date): void {
    for (const session of [...this.#sessions.values()]) {
      if (!isSessionLive(session, now)) this.#delete(session.digest)
    }
    this.#sweepAt = Math.max(SWEEP_AT_LEAST, this.#sessions.size * 2)
  }
}
