import type { RevocationNotice } from '../../revocation/notice.js'
import type { RevocationNotices } from '../../revocation/revocation-notices.js'
import { handleCarriesTags } from '../provider-session.js'
import { duplicateRecord } from '../store-errors.js'
import {
  type CreateSessionRequest,
  isSessionLive,
  type ListSessionsRequest,
  type RevokeSessionsRequest,
  type SessionRecord,
  type SessionStore,
  type SetActiveOrganizationRequest,
  sessionRecord,
  type TouchSessionRequest,
  validateCreateSession,
  validateGetSession,
  validateListSessions,
  validateRevokeSessions,
  validateSetActiveOrganization,
  validateTouchSession,
} from './session-store.js'

const SWEEP_AT_LEAST = 1024

export interface MemorySessionStoreOptions {
  /**
   * Where revocations are announced: every session deleted by `revoke` or replaced by `create` is
   * published (a `session` notice; an `account` notice for all of an account's sessions) before the call
   * resolves. Give the same `MemoryRevocationNotices` to `LocalAccounts({ revocation: { notices } })`.
   */
  readonly notices?: RevocationNotices
}

/**
 * In-memory `SessionStore` for tests and single-process development. Each operation validates its
 * input, then reads and writes in one synchronous step. Expired sessions are dropped when the store
 * has doubled in size since the last sweep.
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, SessionRecord>()
  /** account id -> handle -> digest */
  readonly #handles = new Map<string, Map<string, string>>()
  readonly #notices: RevocationNotices | undefined
  #sweepAt = SWEEP_AT_LEAST

  constructor(options: MemorySessionStoreOptions = {}) {
    this.#notices = options.notices
  }

  async create(request: CreateSessionRequest): Promise<void> {
    const { session, replaces } = validateCreateSession(request)
    if (this.#sessions.has(session.digest)) throw duplicateRecord('a session with this digest')
    const handles = this.#handles.get(session.accountId)
    const holder = handles?.get(session.handle)
    if (holder !== undefined && holder !== replaces) throw duplicateRecord('a session with this handle')
    const replaced = replaces !== undefined && this.#delete(replaces)
    this.#sessions.set(session.digest, session)
    this.#handlesOf(session.accountId).set(session.handle, session.digest)
    if (this.#sessions.size >= this.#sweepAt) this.#sweep(session.lastSeenAt)
    if (replaced) await this.#announce([{ kind: 'session', digest: replaces }])
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

  async setActiveOrganization(request: SetActiveOrganizationRequest): Promise<boolean> {
    const { accountId, handle, organizationId, now } = validateSetActiveOrganization(request)
    const digest = this.#handles.get(accountId)?.get(handle)
    const session = digest === undefined ? undefined : this.#sessions.get(digest)
    if (digest === undefined || session === undefined || !isSessionLive(session, now)) return false
    const { activeOrganizationId: _previous, ...rest } = session
    this.#sessions.set(
      digest,
      sessionRecord(organizationId === null ? rest : { ...rest, activeOrganizationId: organizationId }),
    )
    await this.#announce([{ kind: 'session', digest }])
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
    if (target.by === 'tags') {
      const tagged = [...this.#sessions.values()].filter((session) =>
        handleCarriesTags(session.handle, target.tags),
      )
      for (const session of tagged) this.#delete(session.digest)
      await this.#announce(tagged.map((session) => ({ kind: 'session', digest: session.digest })))
      return tagged.length
    }
    let digest: string | undefined
    if (target.by === 'digest') digest = target.digest
    else if (target.by === 'handle') digest = this.#handles.get(target.accountId)?.get(target.handle)
    if (target.by !== 'account') {
      if (digest === undefined || !this.#delete(digest)) return 0
      await this.#announce([{ kind: 'session', digest }])
      return 1
    }
    let removed = 0
    for (const held of [...(this.#handles.get(target.accountId)?.values() ?? [])]) {
      if (held !== target.exceptDigest && this.#delete(held)) removed += 1
    }
    if (removed > 0) await this.#announce([{ kind: 'account', accountId: target.accountId }])
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

  async #announce(notices: readonly RevocationNotice[]): Promise<void> {
    if (this.#notices === undefined) return
    for (const notice of notices) await this.#notices.publish(notice)
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
