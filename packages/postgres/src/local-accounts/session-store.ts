import {
  type CreateSessionRequest,
  type ListSessionsRequest,
  type RevokeSessionsRequest,
  type SessionRecord,
  type SessionStore,
  type SessionWithAccountEpoch,
  type SetActiveOrganizationRequest,
  sessionRecord,
  type TouchSessionRequest,
  validateCreateSession,
  validateGetSession,
  validateListSessions,
  validateRevokeSessions,
  validateSetActiveOrganization,
  validateTouchSession,
} from '@portcullis/core/local-accounts'
import type { RevocationNotice } from '@portcullis/core/revocation'
import { and, asc, eq, gt, ne, or, type SQL, sql } from 'drizzle-orm'
import { accountsTable as accounts } from '../accounts/tables.js'
import { inStatement, inTransaction } from '../client/transaction.js'
import { notifyRevocations } from '../revocation/channel.js'
import {
  duplicateOr,
  type LocalStoreClient,
  type LocalStoreContext,
  preparedStatements,
  storeContext,
} from './client.js'
import { handleTagSlots, type SessionRow, sessionsTable as sessions } from './tables.js'

export interface PostgresSessionStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: LocalStoreClient
}

const at = (name: string) => sql`${sql.placeholder(name)}::timestamptz`

const live = and(
  eq(sessions.digest, sql.placeholder('digest')),
  gt(sessions.idleExpiresAt, at('now')),
  gt(sessions.absoluteExpiresAt, at('now')),
)

/** The per-request statements (`get`, `getWithAccountEpoch`, `touch`), prepared once per connection. */
const hotPath = preparedStatements((db, name) => ({
  get: db.select().from(sessions).where(live).prepare(name('session_get')),
  // The session and its account's epoch in one statement (strict mode's one read per request).
  getWithEpoch: db
    .select({ session: sessions, accountEpoch: accounts.securityEpoch })
    .from(sessions)
    .leftJoin(accounts, eq(accounts.accountId, sessions.accountId))
    .where(live)
    .prepare(name('session_get_with_epoch')),
  touch: db
    .update(sessions)
    .set({
      lastSeenAt: sql`greatest(${sessions.lastSeenAt}, ${at('seen')})`,
      idleExpiresAt: sql`greatest(${sessions.idleExpiresAt}, least(${at('idle')}, ${sessions.absoluteExpiresAt}))`,
    })
    .where(
      and(
        eq(sessions.digest, sql.placeholder('digest')),
        gt(sessions.idleExpiresAt, at('seen')),
        gt(sessions.absoluteExpiresAt, at('seen')),
      ),
    )
    .prepare(name('session_touch')),
}))

function toSession(row: SessionRow): SessionRecord {
  const { userAgent, clientAddress, activeOrganizationId, ...rest } = row
  return sessionRecord({
    ...rest,
    ...(userAgent === null ? {} : { userAgent }),
    ...(clientAddress === null ? {} : { clientAddress }),
    ...(activeOrganizationId === null ? {} : { activeOrganizationId }),
  })
}

/**
 * The durable `SessionStore`. Sessions are rows keyed by the digest of the session id; `(account_id,
 * handle)` is unique. `get` and `touch` are single prepared statements (the per-request path); `touch`
 * moves both times forward with `greatest(...)` and caps the idle expiry at the absolute one, so
 * concurrent touches on any number of instances never shorten a session. `create` with `replaces`
 * deletes the old session and inserts the new one in one transaction. Every deletion that ends a session
 * (`revoke`, the replaced session of `create`) sends its revocation notice in the same transaction
 * (`notifyRevocations`): one `session` notice per session, one `account` notice for all of an account's.
 * `revoke({ handleTags })` (a back-channel logout) reads the two handle-tag indexes, never the whole table.
 * `getWithAccountEpoch` joins the account's security epoch in (one statement), the active organization
 * included (a column of the row). `setActiveOrganization` is one conditional update of the account's live
 * session with that handle and its `session` notice, in one transaction.
 */
export class PostgresSessionStore implements SessionStore {
  readonly #context: LocalStoreContext

  constructor(options: PostgresSessionStoreOptions) {
    this.#context = storeContext(options, 'PostgresSessionStore')
  }

  async create(request: CreateSessionRequest): Promise<void> {
    const { session, replaces } = validateCreateSession(request)
    const row = {
      ...session,
      userAgent: session.userAgent ?? null,
      clientAddress: session.clientAddress ?? null,
      activeOrganizationId: session.activeOrganizationId ?? null,
    }
    try {
      if (replaces === undefined) {
        await inStatement(() => this.#context.db.insert(sessions).values(row))
        return
      }
      await inTransaction(this.#context.pool, async (tx) => {
        const replaced = await tx
          .delete(sessions)
          .where(eq(sessions.digest, replaces))
          .returning({ digest: sessions.digest })
        await tx.insert(sessions).values(row)
        if (replaced.length > 0) {
          await notifyRevocations(tx, this.#context.channel, [{ kind: 'session', digest: replaces }])
        }
      })
    } catch (error) {
      throw duplicateOr(error, 'a session with this digest or handle')
    }
  }

  async get(digest: string, now: Date): Promise<SessionRecord | null> {
    const key = validateGetSession(digest, now)
    const [row] = await hotPath(this.#context, (prepared) => prepared.get.execute(key))
    return row === undefined ? null : toSession(row)
  }

  async getWithAccountEpoch(digest: string, now: Date): Promise<SessionWithAccountEpoch | null> {
    const key = validateGetSession(digest, now)
    const [row] = await hotPath(this.#context, (prepared) => prepared.getWithEpoch.execute(key))
    return row === undefined ? null : { session: toSession(row.session), accountEpoch: row.accountEpoch }
  }

  async touch(request: TouchSessionRequest): Promise<boolean> {
    const { digest, lastSeenAt, idleExpiresAt } = validateTouchSession(request)
    const result = await hotPath(this.#context, (prepared) =>
      prepared.touch.execute({ digest, seen: lastSeenAt, idle: idleExpiresAt }),
    )
    return result.rowCount === 1
  }

  async setActiveOrganization(request: SetActiveOrganizationRequest): Promise<boolean> {
    const { accountId, handle, organizationId, now } = validateSetActiveOrganization(request)
    return inTransaction(this.#context.pool, async (tx) => {
      const changed = await tx
        .update(sessions)
        .set({ activeOrganizationId: organizationId })
        .where(
          and(
            eq(sessions.accountId, accountId),
            eq(sessions.handle, handle),
            gt(sessions.idleExpiresAt, now),
            gt(sessions.absoluteExpiresAt, now),
          ),
        )
        .returning({ digest: sessions.digest })
      await notifyRevocations(
        tx,
        this.#context.channel,
        changed.map(({ digest }) => ({ kind: 'session', digest })),
      )
      return changed.length === 1
    })
  }

  async list(request: ListSessionsRequest): Promise<readonly SessionRecord[]> {
    const { accountId, now } = validateListSessions(request)
    const rows = await inStatement(() =>
      this.#context.db
        .select()
        .from(sessions)
        .where(
          and(
            eq(sessions.accountId, accountId),
            gt(sessions.idleExpiresAt, now),
            gt(sessions.absoluteExpiresAt, now),
          ),
        )
        .orderBy(asc(sessions.createdAt), sql`${sessions.handle} collate "C"`),
    )
    return rows.map(toSession)
  }

  async revoke(request: RevokeSessionsRequest): Promise<number> {
    const target = validateRevokeSessions(request)
    let where: SQL | undefined
    if (target.by === 'tags') {
      // A back-channel logout: each tag is in one of the handle's two tag slots (an index each).
      const [first, second] = handleTagSlots(sessions.handle)
      where = and(...target.tags.map((tag) => or(eq(first, tag), eq(second, tag))))
    } else if (target.by === 'digest') where = eq(sessions.digest, target.digest)
    else if (target.by === 'handle') {
      where = and(eq(sessions.accountId, target.accountId), eq(sessions.handle, target.handle))
    } else {
      where = and(
        eq(sessions.accountId, target.accountId),
        target.exceptDigest === undefined ? undefined : ne(sessions.digest, target.exceptDigest),
      )
    }
    return inTransaction(this.#context.pool, async (tx) => {
      const removed = await tx.delete(sessions).where(where).returning({ digest: sessions.digest })
      const notices: RevocationNotice[] =
        target.by === 'account'
          ? removed.length === 0
            ? []
            : [{ kind: 'account', accountId: target.accountId }]
          : removed.map(({ digest }) => ({ kind: 'session', digest }))
      await notifyRevocations(tx, this.#context.channel, notices)
      return removed.length
    })
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresSessionStore {}'
  }
}
