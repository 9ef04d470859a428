import { defined } from '../runtime.js'
import type { SessionRecord } from './session-store.js'

/** One of the account's sessions as its owner may see it (never the session id or its digest). */
export interface LocalSessionView {
  /** The session handle: `DELETE .../sessions/{id}` revokes it. */
  readonly id: string
  readonly createdAt: Date
  readonly lastSeenAt: Date
  readonly idleExpiresAt: Date
  readonly absoluteExpiresAt: Date
  readonly userAgent?: string
  readonly clientAddress?: string
  /** Whether this is the session the request came with. */
  readonly current: boolean
}

/** The account's sessions as their owner may see them (never the session id or its digest). */
export function sessionViews(
  sessions: readonly SessionRecord[],
  currentHandle: string | undefined,
): readonly LocalSessionView[] {
  return sessions.map((session) =>
    Object.freeze({
      id: session.handle,
      createdAt: session.createdAt,
      lastSeenAt: session.lastSeenAt,
      idleExpiresAt: session.idleExpiresAt,
      absoluteExpiresAt: session.absoluteExpiresAt,
      ...defined({ userAgent: session.userAgent, clientAddress: session.clientAddress }),
      current: session.handle === currentHandle,
    }),
  )
}
