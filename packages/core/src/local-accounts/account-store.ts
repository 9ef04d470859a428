import {
  invalid,
  requireAfter,
  requireBoolean,
  requireInstant,
  requireNormalizedUsername,
  requirePasswordHash,
  requireRecord,
  requireStoreId,
  requireTokenDigest,
} from './store-input.js'

/**
 * A local account (username and password). `passwordHash` is the encoded hash (an argon2id PHC string);
 * records built by `localAccountRecord` keep it out of `util.inspect` and `JSON.stringify`.
 */
export interface LocalAccountRecord {
  readonly accountId: string
  /** As `normalizeUsername` returns it; unique. */
  readonly username: string
  readonly passwordHash: string
  /** Starts at 1 and only grows; sessions and tokens carrying an older epoch are stale. */
  readonly securityEpoch: number
  readonly createdAt: Date
  readonly updatedAt: Date
  /** When the password was last set (creation or change; a rehash of the same password keeps it). */
  readonly passwordChangedAt: Date
}

export interface CreateLocalAccountRequest {
  readonly accountId: string
  /** Already normalized (`normalizeUsername`); anything else is `local.invalid_username`. */
  readonly username: string
  readonly passwordHash: string
  readonly now: Date
  /** An invite code's digest (`digestOpaqueToken`), consumed with the insert: single use, unexpired. */
  readonly invite?: { readonly digest: string } | undefined
}

/**
 * `invite-invalid` (unknown, used or expired invite) is decided before the username, so a caller without
 * a valid invite learns nothing about which usernames exist. `username-taken` never burns the invite.
 */
export type CreateLocalAccountOutcome =
  | { readonly outcome: 'created'; readonly account: LocalAccountRecord }
  | { readonly outcome: 'username-taken' }
  | { readonly outcome: 'invite-invalid' }

export type FindLocalAccountQuery = { readonly username: string } | { readonly accountId: string }

export interface SetPasswordRequest {
  readonly accountId: string
  readonly passwordHash: string
  readonly now: Date
  /** Write only while the stored hash is still exactly this one (compare-and-swap). */
  readonly expectedPasswordHash?: string | undefined
  /** Increment the security epoch in the same statement (a password change invalidates sessions). */
  readonly bumpEpoch: boolean
  /**
   * The same password re-encoded with new parameters (rehash on login): `passwordChangedAt` stays,
   * `expectedPasswordHash` is required and `bumpEpoch` must be false. Default false.
   */
  readonly rehash?: boolean | undefined
}

export interface BumpSecurityEpochRequest {
  readonly accountId: string
  readonly now: Date
}

export interface IssueInviteRequest {
  /** `digestOpaqueToken(code)`: the invite code itself is never stored. */
  readonly digest: string
  readonly expiresAt: Date
  readonly now: Date
}

/**
 * Port: local accounts and single-use invites. Every operation is atomic (one transaction or one
 * statement); concurrent calls on any number of app instances see exactly one winner.
 */
export interface LocalAccountStore {
  /**
   * Creates an account with security epoch 1. With an invite, the invite is checked first and
   * consumed in the same transaction as the insert. A stored `accountId` is `local.store_duplicate`.
   */
  createAccount(request: CreateLocalAccountRequest): Promise<CreateLocalAccountOutcome>
  /** The account with this (normalized) username or id, or null. */
  findAccount(query: FindLocalAccountQuery): Promise<LocalAccountRecord | null>
  /**
   * Replaces the password hash and returns the updated account; null for an unknown account or when
   * `expectedPasswordHash` no longer matches (a rehash loses safely to a concurrent change).
   */
  setPassword(request: SetPasswordRequest): Promise<LocalAccountRecord | null>
  /** Increments the security epoch; the new epoch, or null for an unknown account. */
  bumpSecurityEpoch(request: BumpSecurityEpochRequest): Promise<number | null>
  /** Stores a single-use invite; a stored digest is `local.store_duplicate`. */
  issueInvite(request: IssueInviteRequest): Promise<void>
}

const REDACTED = '[redacted]'

/**
 * A frozen `LocalAccountRecord` with copied dates whose `util.inspect` and `JSON.stringify` forms show
 * `passwordHash: '[redacted]'`. Stores return their records through this.
 */
export function localAccountRecord(fields: LocalAccountRecord): LocalAccountRecord {
  const record: LocalAccountRecord = {
    accountId: fields.accountId,
    username: fields.username,
    passwordHash: fields.passwordHash,
    securityEpoch: fields.securityEpoch,
    createdAt: new Date(fields.createdAt.getTime()),
    updatedAt: new Date(fields.updatedAt.getTime()),
    passwordChangedAt: new Date(fields.passwordChangedAt.getTime()),
  }
  const visible = () => ({ ...record, passwordHash: REDACTED })
  Object.defineProperties(record, {
    toJSON: { value: visible, enumerable: false },
    [Symbol.for('nodejs.util.inspect.custom')]: {
      value: (_depth: number, options: object, inspect: (value: unknown, options: object) => string) =>
        `LocalAccountRecord ${inspect(visible(), options)}`,
      enumerable: false,
    },
  })
  return Object.freeze(record)
}

/** `createAccount` input, validated and copied. */
export function validateCreateLocalAccount(request: unknown): {
  readonly accountId: string
  readonly username: string
  readonly passwordHash: string
  readonly now: Date
  readonly inviteDigest: string | undefined
} {
  const fields = requireRecord(request, 'request')
  const invite = fields.invite === undefined ? undefined : requireRecord(fields.invite, 'invite')
  return {
    accountId: requireStoreId(fields.accountId, 'accountId'),
    username: requireNormalizedUsername(fields.username),
    passwordHash: requirePasswordHash(fields.passwordHash, 'passwordHash'),
    now: requireInstant(fields.now, 'now'),
    inviteDigest: invite === undefined ? undefined : requireTokenDigest(invite.digest, 'invite.digest'),
  }
}

/** `findAccount` input: exactly one of `username` and `accountId`. */
export function validateFindLocalAccount(
  query: unknown,
): { readonly username: string } | { readonly accountId: string } {
  const fields = requireRecord(query, 'query')
  const byName = fields.username !== undefined
  if (byName === (fields.accountId !== undefined)) {
    throw invalid('query must have exactly one of username and accountId')
  }
  return byName
    ? { username: requireNormalizedUsername(fields.username) }
    : { accountId: requireStoreId(fields.accountId, 'accountId') }
}

/** `setPassword` input, validated and copied. */
export function validateSetPassword(request: unknown): {
  readonly accountId: string
  readonly passwordHash: string
  readonly now: Date
  readonly expectedPasswordHash: string | undefined
  readonly bumpEpoch: boolean
  readonly rehash: boolean
} {
  const fields = requireRecord(request, 'request')
  const expected =
    fields.expectedPasswordHash === undefined
      ? undefined
      : requirePasswordHash(fields.expectedPasswordHash, 'expectedPasswordHash')
  const rehash = fields.rehash === undefined ? false : requireBoolean(fields.rehash, 'rehash')
  const bumpEpoch = requireBoolean(fields.bumpEpoch, 'bumpEpoch')
  if (rehash && (bumpEpoch || expected === undefined)) {
    throw invalid('a rehash needs expectedPasswordHash and never bumps the epoch')
  }
  return {
    accountId: requireStoreId(fields.accountId, 'accountId'),
    passwordHash: requirePasswordHash(fields.passwordHash, 'passwordHash'),
    now: requireInstant(fields.now, 'now'),
    expectedPasswordHash: expected,
    bumpEpoch,
    rehash,
  }
}

/** `bumpSecurityEpoch` input, validated and copied. */
export function validateBumpSecurityEpoch(request: unknown): BumpSecurityEpochRequest {
  const fields = requireRecord(request, 'request')
  return { accountId: requireStoreId(fields.accountId, 'accountId'), now: requireInstant(fields.now, 'now') }
}

/** `issueInvite` input, validated and copied; `expiresAt` must be after `now`. */
export function validateIssueInvite(request: unknown): IssueInviteRequest {
  const fields = requireRecord(request, 'request')
  const copy = {
    digest: requireTokenDigest(fields.digest, 'digest'),
    expiresAt: requireInstant(fields.expiresAt, 'expiresAt'),
    now: requireInstant(fields.now, 'now'),
  }
  requireAfter(copy.expiresAt, copy.now, 'expiresAt must be after now')
  return copy
}
