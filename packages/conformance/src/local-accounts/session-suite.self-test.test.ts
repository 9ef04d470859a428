import { setImmediate as tick } from 'node:timers/promises'
import {
  type CreateSessionRequest,
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
} from '@portcullis/core/local-accounts'
import { describe, expect, it } from 'vitest'
import { runSuite } from '../suite/suite.js'
import { assertSessionStoreConformance, sessionStoreSuite } from './index.js'

type Flaw =
  | 'none'
  | 'ignores-idle-expiry'
  | 'inclusive-expiry'
  | 'touch-overwrites'
  | 'touch-uncapped'
  | 'touch-revives'
  | 'non-atomic-touch'
  | 'replaces-ignored'
  | 'duplicate-overwrites'
  | 'handle-not-scoped'
  | 'revoke-all-ignores-except'
  | 'list-unsorted'
  | 'lenient'

/** A deliberately naive store: correct with flaw `none`, each other flaw breaks one rule. */
class NaiveSessionStore implements SessionStore {
  readonly #sessions = new Map<string, SessionRecord>()

  constructor(private readonly flaw: Flaw) {}

  #live(session: SessionRecord, now: Date): boolean {
    const time = now.getTime()
    if (this.flaw === 'inclusive-expiry') return time <= session.idleExpiresAt.getTime()
    const idleOk = this.flaw === 'ignores-idle-expiry' || time < session.idleExpiresAt.getTime()
    return idleOk && time < session.absoluteExpiresAt.getTime()
  }

  async create(request: CreateSessionRequest): Promise<void> {
    const { session, replaces } =
      this.flaw === 'lenient'
        ? { session: request.session, replaces: request.replaces }
        : validateCreateSession(request)
    const clash = [...this.#sessions.values()].some(
      (other) =>
        other.digest === session.digest ||
        (other.accountId === session.accountId &&
          other.handle === session.handle &&
          other.digest !== replaces),
    )
    if (clash && this.flaw !== 'duplicate-overwrites') {
      throw Object.assign(new Error('duplicate'), { code: 'local.store_duplicate' })
    }
    if (replaces !== undefined && this.flaw !== 'replaces-ignored') this.#sessions.delete(replaces)
    this.#sessions.set(session.digest, sessionRecord(session))
  }

  async get(digest: string, now: Date): Promise<SessionRecord | null> {
    if (this.flaw !== 'lenient') validateGetSession(digest, now)
    const session = this.#sessions.get(digest)
    return session !== undefined && this.#live(session, now) ? session : null
  }

  async touch(request: TouchSessionRequest): Promise<boolean> {
    const { digest, lastSeenAt, idleExpiresAt } =
      this.flaw === 'lenient' ? request : validateTouchSession(request)
    const before = this.#sessions.get(digest)
    if (before === undefined || (this.flaw !== 'touch-revives' && !this.#live(before, lastSeenAt)))
      return false
    if (this.flaw === 'non-atomic-touch') await tick()
    const base = this.flaw === 'non-atomic-touch' ? before : (this.#sessions.get(digest) ?? before)
    const overwrite = this.flaw === 'touch-overwrites'
    const capped =
      this.flaw === 'touch-uncapped'
        ? idleExpiresAt.getTime()
        : Math.min(idleExpiresAt.getTime(), base.absoluteExpiresAt.getTime())
    this.#sessions.set(
      digest,
      sessionRecord({
        ...base,
        lastSeenAt: new Date(
          overwrite ? lastSeenAt.getTime() : Math.max(base.lastSeenAt.getTime(), lastSeenAt.getTime()),
        ),
        idleExpiresAt: new Date(overwrite ? capped : Math.max(base.idleExpiresAt.getTime(), capped)),
      }),
    )
    return true
  }

  async list(request: ListSessionsRequest): Promise<readonly SessionRecord[]> {
    if (this.flaw !== 'lenient') validateListSessions(request)
    const live = [...this.#sessions.values()].filter(
      (session) => session.accountId === request.accountId && this.#live(session, request.now),
    )
    if (this.flaw === 'list-unsorted')
      return live.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
    return live.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
  }

  async revoke(request: RevokeSessionsRequest): Promise<number> {
    if (this.flaw === 'lenient' && 'digest' in request) return this.#sessions.delete(request.digest) ? 1 : 0
    const target = validateRevokeSessions(request)
    const doomed = [...this.#sessions.values()].filter((session) => {
      if (target.by === 'digest') return session.digest === target.digest
      if (target.by === 'tags') {
        const slots = [session.handle.slice(0, 11), session.handle.slice(11, 22)]
        return target.tags.every((tag) => slots.includes(tag))
      }
      const mine = this.flaw === 'handle-not-scoped' || session.accountId === target.accountId
      if (target.by === 'handle') return mine && session.handle === target.handle
      return mine && (this.flaw === 'revoke-all-ignores-except' || session.digest !== target.exceptDigest)
    })
    for (const session of doomed) this.#sessions.delete(session.digest)
    return doomed.length
  }
}

const broken: readonly { flaw: Flaw; caught: readonly string[] }[] = [
  { flaw: 'ignores-idle-expiry', caught: ['sessions.expiry', 'sessions.touch'] },
  { flaw: 'inclusive-expiry', caught: ['sessions.expiry'] },
  { flaw: 'touch-overwrites', caught: ['sessions.touch', 'sessions.concurrent-touch'] },
  { flaw: 'touch-uncapped', caught: ['sessions.touch'] },
  { flaw: 'touch-revives', caught: ['sessions.touch'] },
  { flaw: 'non-atomic-touch', caught: ['sessions.concurrent-touch'] },
  { flaw: 'replaces-ignored', caught: ['sessions.rotation'] },
  { flaw: 'duplicate-overwrites', caught: ['sessions.duplicates'] },
  { flaw: 'handle-not-scoped', caught: ['sessions.revoke'] },
  { flaw: 'revoke-all-ignores-except', caught: ['sessions.revoke'] },
  { flaw: 'list-unsorted', caught: ['sessions.list'] },
  { flaw: 'lenient', caught: ['sessions.input'] },
]

describe('SessionStore conformance suite against deliberately broken stores', () => {
  it('passes the naive store without a flaw', async () => {
    await expect(
      assertSessionStoreConformance(() => ({ store: new NaiveSessionStore('none') })),
    ).resolves.toBeUndefined()
  })

  for (const { flaw, caught } of broken) {
    it(`fails "${flaw}" naming ${caught.join(', ')}`, async () => {
      const results = await runSuite(sessionStoreSuite(() => ({ store: new NaiveSessionStore(flaw) })))
      const failed = results.filter((result) => !result.passed).map((result) => result.id)
      expect(failed).toEqual(expect.arrayContaining([...caught]))
    })
  }
})
