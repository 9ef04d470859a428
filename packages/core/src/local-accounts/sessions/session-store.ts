import {
  invalid,
  MAX_SESSION_CLIENT_ADDRESS_LENGTH,
  MAX_SESSION_USER_AGENT_LENGTH,
  optionalText,
  requireAfter,
  requireEpoch,
  requireHandle,
  requireInstant,
  requireRecord,
  requireStoreId,
  requireTokenDigest,
} from '../store-input.js'

/**
 * A server-side session. The store is keyed by `digest` (`digestOpaqueToken` of the session id the
 * cookie carries) and never sees the id itself. `handle` is a separate random public id, unique per
 * account, for listing and revoking sessions (and for security events) without exposing the digest.
 */
export interface SessionRecord {
  readonly digest: string
  readonly handle: string
  readonly accountId: string
  /** The account's security epoch when the session was created; older than the account's means stale. */
  readonly securityEpoch: number
  readonly createdAt: Date
  readonly lastSeenAt: Date
  /** The session ends here unless `touch` extends it; never after `absoluteExpiresAt`. */
  readonly idleExpiresAt: Date
  /** The session ends here whatever its activity. */
  readonly absoluteExpiresAt: Date
  /** At most `MAX_SESSION_USER_AGENT_LENGTH` characters: truncate the header before storing. */
  readonly userAgent?: string
  readonly clientAddress?: string
  /**
   * The organization the signed-in person chose to work in (`setActiveOrganization`), if any. Only a
   * choice: the membership and its role are read from the membership store on every request, never from
   * here, and a resolver shows it only while the account is still a member.
   */
  readonly activeOrganizationId?: string
}

/** `setActiveOrganization` input: the account's own session, by its handle, and the choice (null clears it). */
export interface SetActiveOrganizationRequest {
  readonly accountId: string
  readonly handle: string
  readonly organizationId: string | null
  /** A session already expired at this time is not changed. */
  readonly now: Date
}

export interface CreateSessionRequest {
  readonly session: SessionRecord
  /** The digest of a session to delete in the same transaction (id rotation at login or privilege change). */
  readonly replaces?: string | undefined
}

export interface TouchSessionRequest {
  readonly digest: string
  /** The time of the request; a session already expired at this time is not revived. */
  readonly lastSeenAt: Date
  /** The wanted idle expiry; capped at `absoluteExpiresAt`, and never moves backwards. */
  readonly idleExpiresAt: Date
}

export interface ListSessionsRequest {
  readonly accountId: string
  readonly now: Date
}

export type RevokeSessionsRequest =
  | { readonly digest: string }
  | { readonly accountId: string; readonly handle: string }
  | { readonly accountId: string; readonly all: true; readonly exceptDigest?: string | undefined }
  /** Every session, of any account, whose handle's tag slots hold each of these tags (a back-channel logout). */
  | { readonly handleTags: readonly string[] }

/** A live session and its account's current security epoch (null when the account is gone), read together. */
export interface SessionWithAccountEpoch {
  readonly session: SessionRecord
  readonly accountEpoch: number | null
}

/**
 * Port: server-side sessions. A session is live while `now` is before both `idleExpiresAt` and
 * `absoluteExpiresAt`; expired sessions are invisible (a later sweep deletes them). Every operation is
 * atomic: one transaction or one statement.
 */
export interface SessionStore {
  /**
   * Stores a session and, in the same transaction, deletes the session `replaces` names (if it still
   * exists). A stored digest, or a handle the account already uses, is `local.store_duplicate`.
   */
  create(request: CreateSessionRequest): Promise<void>
  /** The live session with this digest, or null (unknown, idle-expired or past its absolute expiry). */
  get(digest: string, now: Date): Promise<SessionRecord | null>
  /**
   * Moves `lastSeenAt` and `idleExpiresAt` forward (never backwards, never past `absoluteExpiresAt`).
   * True when the session is live at `lastSeenAt`; false for unknown or expired sessions (not revived).
   */
  touch(request: TouchSessionRequest): Promise<boolean>
  /** The account's live sessions, oldest first (by `createdAt`, then `handle`). */
  list(request: ListSessionsRequest): Promise<readonly SessionRecord[]>
  /**
   * Deletes one session (by digest, or by the account's handle), all of an account's sessions except
   * `exceptDigest` (sign out everywhere else), or every session, of any account, whose handle carries
   * each of `handleTags` (1 or 2 tags of 11 base64url characters) in one of its two tag slots: its first
   * two 11-character runs, where `providerSessionTags` puts them (a durable store indexes both slots).
   * Returns how many stored sessions were deleted.
   */
  revoke(request: RevokeSessionsRequest): Promise<number>
  /**
   * Optional: the live session with this digest and its account's current security epoch, read in ONE
   * statement (a join), or null as `get`. When present, a session not in the cache (every request in strict
   * mode) costs one store round trip instead of two.
   */
  getWithAccountEpoch?(digest: string, now: Date): Promise<SessionWithAccountEpoch | null>
  /**
   * Optional: sets (or with `null` clears) the active organization of the account's live session with this
   * handle, in one statement, and announces it (a `session` notice with the session's digest) so every
   * instance re-reads the record. True when that session was live and is changed; false for an unknown,
   * expired or revoked session and for another account's handle (nothing is written, nothing revived).
   */
  setActiveOrganization?(request: SetActiveOrganizationRequest): Promise<boolean>
}

/** A frozen copy of a session record with copied dates; optional fields only when present. */
export function sessionRecord(fields: SessionRecord): SessionRecord {
  const copy: {
    -readonly [K in keyof SessionRecord]: SessionRecord[K]
  } = {
    digest: fields.digest,
    handle: fields.handle,
    accountId: fields.accountId,
    securityEpoch: fields.securityEpoch,
    createdAt: new Date(fields.createdAt.getTime()),
    lastSeenAt: new Date(fields.lastSeenAt.getTime()),
    idleExpiresAt: new Date(fields.idleExpiresAt.getTime()),
    absoluteExpiresAt: new Date(fields.absoluteExpiresAt.getTime()),
  }
  if (fields.userAgent !== undefined && fields.userAgent !== null) copy.userAgent = fields.userAgent
  if (fields.clientAddress !== undefined && fields.clientAddress !== null) {
    copy.clientAddress = fields.clientAddress
  }
  if (fields.activeOrganizationId !== undefined && fields.activeOrganizationId !== null) {
    copy.activeOrganizationId = fields.activeOrganizationId
  }
  return Object.freeze(copy)
}

/**
 * A session record, validated and copied: `createdAt <= lastSeenAt < idleExpiresAt <= absoluteExpiresAt`,
 * epoch a non-negative integer, bounded user agent and client address.
 */
export function validateSessionRecord(value: unknown): SessionRecord {
  const fields = requireRecord(value, 'session')
  const userAgent = optionalText(fields.userAgent, 'userAgent', MAX_SESSION_USER_AGENT_LENGTH)
  const clientAddress = optionalText(fields.clientAddress, 'clientAddress', MAX_SESSION_CLIENT_ADDRESS_LENGTH)
  const activeOrganizationId =
    fields.activeOrganizationId === undefined
      ? undefined
      : requireStoreId(fields.activeOrganizationId, 'session.activeOrganizationId')
  const record = sessionRecord({
    digest: requireTokenDigest(fields.digest, 'session.digest'),
    handle: requireHandle(fields.handle, 'session.handle'),
    accountId: requireStoreId(fields.accountId, 'session.accountId'),
    securityEpoch: requireEpoch(fields.securityEpoch, 'session.securityEpoch', 0),
    createdAt: requireInstant(fields.createdAt, 'session.createdAt'),
    lastSeenAt: requireInstant(fields.lastSeenAt, 'session.lastSeenAt'),
    idleExpiresAt: requireInstant(fields.idleExpiresAt, 'session.idleExpiresAt'),
    absoluteExpiresAt: requireInstant(fields.absoluteExpiresAt, 'session.absoluteExpiresAt'),
    ...(userAgent === undefined ? {} : { userAgent }),
    ...(clientAddress === undefined ? {} : { clientAddress }),
    ...(activeOrganizationId === undefined ? {} : { activeOrganizationId }),
  })
  if (record.lastSeenAt.getTime() < record.createdAt.getTime()) {
    throw invalid('session.lastSeenAt must not be before createdAt')
  }
  requireAfter(record.idleExpiresAt, record.lastSeenAt, 'session.idleExpiresAt must be after lastSeenAt')
  if (record.idleExpiresAt.getTime() > record.absoluteExpiresAt.getTime()) {
    throw invalid('session.idleExpiresAt must not be after absoluteExpiresAt')
  }
  return record
}

/** `create` input, validated and copied; `replaces` must differ from the new digest. */
export function validateCreateSession(request: unknown): {
  readonly session: SessionRecord
  readonly replaces: string | undefined
} {
  const fields = requireRecord(request, 'request')
  const session = validateSessionRecord(fields.session)
  const replaces = fields.replaces === undefined ? undefined : requireTokenDigest(fields.replaces, 'replaces')
  if (replaces === session.digest) throw invalid('a session cannot replace itself')
  return { session, replaces }
}

/** `get` input, validated and copied. */
export function validateGetSession(
  digest: unknown,
  now: unknown,
): { readonly digest: string; readonly now: Date } {
  return { digest: requireTokenDigest(digest, 'digest'), now: requireInstant(now, 'now') }
}

/** `touch` input, validated and copied; `idleExpiresAt` must be after `lastSeenAt`. */
export function validateTouchSession(request: unknown): TouchSessionRequest {
  const fields = requireRecord(request, 'request')
  const copy = {
    digest: requireTokenDigest(fields.digest, 'digest'),
    lastSeenAt: requireInstant(fields.lastSeenAt, 'lastSeenAt'),
    idleExpiresAt: requireInstant(fields.idleExpiresAt, 'idleExpiresAt'),
  }
  requireAfter(copy.idleExpiresAt, copy.lastSeenAt, 'idleExpiresAt must be after lastSeenAt')
  return copy
}

/** `setActiveOrganization` input, validated and copied: a store id or null, never anything else. */
export function validateSetActiveOrganization(request: unknown): SetActiveOrganizationRequest {
  const fields = requireRecord(request, 'request')
  if (fields.organizationId === undefined) throw invalid('organizationId must be a store id or null')
  return {
    accountId: requireStoreId(fields.accountId, 'accountId'),
    handle: requireHandle(fields.handle),
    organizationId:
      fields.organizationId === null ? null : requireStoreId(fields.organizationId, 'organizationId'),
    now: requireInstant(fields.now, 'now'),
  }
}

/** `list` input, validated and copied. */
export function validateListSessions(request: unknown): ListSessionsRequest {
  const fields = requireRecord(request, 'request')
  return { accountId: requireStoreId(fields.accountId, 'accountId'), now: requireInstant(fields.now, 'now') }
}

/** Which sessions a `revoke` deletes, validated: exactly one of the three shapes. */
export type ValidatedSessionRevocation =
  | { readonly by: 'tags'; readonly tags: readonly string[] }
  | { readonly by: 'digest'; readonly digest: string }
  | { readonly by: 'handle'; readonly accountId: string; readonly handle: string }
  | { readonly by: 'account'; readonly accountId: string; readonly exceptDigest: string | undefined }

/** `revoke` input: `{ digest }`, `{ accountId, handle }` or `{ accountId, all: true, exceptDigest? }`. */
export function validateRevokeSessions(request: unknown): ValidatedSessionRevocation {
  const fields = requireRecord(request, 'request')
  const has = (key: string) => fields[key] !== undefined
  if (has('handleTags')) {
    if (Object.keys(fields).some((key) => key !== 'handleTags' && fields[key] !== undefined)) {
      throw invalid('revoke by handle tags takes no other field')
    }
    const tags = fields.handleTags
    if (!isHandleTagList(tags)) throw invalid('handleTags must be 1 or 2 tags of 11 base64url characters')
    return { by: 'tags', tags: Object.freeze([...tags]) }
  }
  if (has('digest')) {
    if (has('accountId') || has('handle') || has('all') || has('exceptDigest')) {
      throw invalid('revoke by digest takes no other field')
    }
    return { by: 'digest', digest: requireTokenDigest(fields.digest, 'digest') }
  }
  const accountId = requireStoreId(fields.accountId, 'accountId')
  if (has('handle')) {
    if (has('all') || has('exceptDigest')) throw invalid('revoke by handle takes only accountId and handle')
    return { by: 'handle', accountId, handle: requireHandle(fields.handle) }
  }
  if (fields.all !== true)
    throw invalid('revoke needs digest, accountId and handle, or accountId and all: true')
  const exceptDigest = has('exceptDigest')
    ? requireTokenDigest(fields.exceptDigest, 'exceptDigest')
    : undefined
  return { by: 'account', accountId, exceptDigest }
}

const HANDLE_TAG = /^[A-Za-z0-9_-]{11}$/

/** 1 or 2 tags of 11 base64url characters: what a session handle's tag slots hold. */
export function isHandleTagList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.length >= 1 && value.length <= 2 && value.every(isHandleTag)
}

function isHandleTag(value: unknown): value is string {
  return typeof value === 'string' && HANDLE_TAG.test(value)
}

/** Whether a session is live at `now`: before both its idle and its absolute expiry. */
export function isSessionLive(session: SessionRecord, now: Date): boolean {
  const time = now.getTime()
  return time < session.idleExpiresAt.getTime() && time < session.absoluteExpiresAt.getTime()
}
