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
