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
import { and, asc, eq, gt, ne, type SQL, sql } from 'drizzle-orm'
import { inStatement, inTransaction } from '../client/transaction.js'
import {
  duplicateOr,
  type LocalStoreClient,
  type LocalStoreContext,
  preparedStatements,
  storeContext,
} from './client.js'
import { type SessionRow, sessionsTable as sessions } from './tables.js'

export interface PostgresSessionStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: LocalStoreClient
}

const at = (name: string) => sql`${sql.placeholder(name)}::timestamptz`

/** The per-request statements (`get`, `touch`), prepared once per connection. */
const hotPath = preparedStatements((db, name) => ({
  get: db
    .select()
    .from(sessions)
    .where(
      and(
        eq(sessions.digest, sql.placeholder('digest')),
        gt(sessions.idleExpiresAt, at('now')),
        gt(sessions.absoluteExpiresAt, at('now')),
      ),
    )
    .prepare(name('session_get')),
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
  const { userAgent, clientAddress, ...rest } = row
  return sessionRecord({
    ...rest,
    ...(userAgent === null ? {} : { userAgent }),
    ...(clientAddress === null ? {} : { clientAddress }),
  })
}

/**
 * The durable `SessionStore`. Sessions are rows keyed by the digest of the session id; `(account_id,
 * handle)` is unique. `get` and `touch` are single prepared statements (the per-request path); `touch`
 * moves both times forward with `greatest(...)` and caps the idle expiry at the absolute one, so
 * concurrent touches on any number of instances never shorten a session. `create` with `replaces`
 * deletes the old session and inserts the new one in one transaction.
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
    }
    try {
      if (replaces === undefined) {
        await inStatement(() => this.#context.db.insert(sessions).values(row))
        return
      }
      await inTransaction(this.#context.pool, async (tx) => {
        await tx.delete(sessions).where(eq(sessions.digest, replaces))
        await tx.insert(sessions).values(row)
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

  async touch(request: TouchSessionRequest): Promise<boolean> {
    const { digest, lastSeenAt, idleExpiresAt } = validateTouchSession(request)
    const result = await hotPath(this.#context, (prepared) =>
      prepared.touch.execute({ digest, seen: lastSeenAt, idle: idleExpiresAt }),
    )
    return result.rowCount === 1
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
    if (target.by === 'digest') where = eq(sessions.digest, target.digest)
    else if (target.by === 'handle') {
      where = and(eq(sessions.accountId, target.accountId), eq(sessions.handle, target.handle))
    } else {
      where = and(
        eq(sessions.accountId, target.accountId),
        target.exceptDigest === undefined ? undefined : ne(sessions.digest, target.exceptDigest),
      )
    }
    const result = await inStatement(() => this.#context.db.delete(sessions).where(where))
    return result.rowCount ?? 0
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresSessionStore {}'
  }
}
