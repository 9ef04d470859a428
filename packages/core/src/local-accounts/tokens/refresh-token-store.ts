import {
  invalid,
  requireAfter,
  requireEpoch,
  requireInstant,
  requireRecord,
  requireStoreId,
  requireTokenDigest,
} from '../store-input.js'

/**
 * A family of rotating refresh tokens: one sign-in's chain. Tokens are stored as digests only
 * (`digestOpaqueToken`); each is used once, and using a used one revokes the whole family.
 */
export interface RefreshFamilyRecord {
  readonly familyId: string
  readonly accountId: string
  /** The account's security epoch at sign-in; older than the account's means stale. */
  readonly securityEpoch: number
  readonly createdAt: Date
  /** No token of the family works at or after this time, however recently rotated. */
  readonly absoluteExpiresAt: Date
}

export interface RefreshTokenInput {
  readonly digest: string
  readonly expiresAt: Date
}

export interface CreateRefreshFamilyRequest extends RefreshFamilyRecord {
  /** The family's first token; it may not outlive the family. */
  readonly token: RefreshTokenInput
}

export interface RotateRefreshTokenRequest {
  readonly presentedDigest: string
  /** The replacement; its expiry is capped at the family's `absoluteExpiresAt`. */
  readonly next: RefreshTokenInput
  readonly now: Date
}

/**
 * - `rotated`: the presented token was live; it is now used and `next` is the family's live token
 *   (valid until `expiresAt`, the capped expiry).
 * - `reused`: the presented token had already been rotated (at `rotatedAt`): the store revoked the whole
 *   family in the same transaction. Report it (`refresh.reuse_detected`).
 * - `invalid`: unknown digest, expired token, or a revoked or expired family.
 */
export type RotateRefreshTokenOutcome =
  | { readonly outcome: 'rotated'; readonly family: RefreshFamilyRecord; readonly expiresAt: Date }
  | {
      readonly outcome: 'reused'
      readonly familyId: string
      readonly accountId: string
      readonly rotatedAt: Date
    }
  | { readonly outcome: 'invalid' }

export type RevokeRefreshFamilyRequest =
  | { readonly digest: string; readonly now: Date }
  | { readonly familyId: string; readonly now: Date }

export interface RevokeAccountRefreshFamiliesRequest {
  readonly accountId: string
  readonly now: Date
}

/**
 * Port: rotating refresh tokens with reuse detection. Rotation is a conditional update of the presented
 * token (`... where digest = $1 and rotated_at is null`), so of concurrent uses of one token exactly one
 * is `rotated` and every other is `reused` (and the family ends revoked). Every operation is atomic.
 */
export interface RefreshTokenStore {
  /** Stores a family and its first token; a stored family id or token digest is `local.store_duplicate`. */
  createFamily(request: CreateRefreshFamilyRequest): Promise<void>
  /** Uses the presented token once; see `RotateRefreshTokenOutcome`. A stored `next.digest` is `local.store_duplicate`. */
  rotate(request: RotateRefreshTokenRequest): Promise<RotateRefreshTokenOutcome>
  /**
   * Revokes the family of a token (any of its tokens, used or not) or the family with this id. True when
   * a live family was revoked now; false for unknown tokens (RFC 7009: not an error) and for families
   * already revoked or expired.
   */
  revoke(request: RevokeRefreshFamilyRequest): Promise<boolean>
  /** Revokes every live family of the account (sign out everywhere); how many. */
  revokeAccount(request: RevokeAccountRefreshFamiliesRequest): Promise<number>
}

/** A frozen copy of a family record. */
export function refreshFamilyRecord(fields: RefreshFamilyRecord): RefreshFamilyRecord {
  return Object.freeze({
    familyId: fields.familyId,
    accountId: fields.accountId,
    securityEpoch: fields.securityEpoch,
    createdAt: new Date(fields.createdAt.getTime()),
    absoluteExpiresAt: new Date(fields.absoluteExpiresAt.getTime()),
  })
}

function tokenInput(value: unknown, field: string): RefreshTokenInput {
  const fields = requireRecord(value, field)
  return {
    digest: requireTokenDigest(fields.digest, `${field}.digest`),
    expiresAt: requireInstant(fields.expiresAt, `${field}.expiresAt`),
  }
}

/**
 * `createFamily` input, validated and copied: `createdAt < token.expiresAt <= absoluteExpiresAt`, the
 * epoch a non-negative integer.
 */
export function validateCreateRefreshFamily(request: unknown): {
  readonly family: RefreshFamilyRecord
  readonly token: RefreshTokenInput
} {
  const fields = requireRecord(request, 'request')
  const family = refreshFamilyRecord({
    familyId: requireStoreId(fields.familyId, 'familyId'),
    accountId: requireStoreId(fields.accountId, 'accountId'),
    securityEpoch: requireEpoch(fields.securityEpoch, 'securityEpoch', 0),
    createdAt: requireInstant(fields.createdAt, 'createdAt'),
    absoluteExpiresAt: requireInstant(fields.absoluteExpiresAt, 'absoluteExpiresAt'),
  })
  const token = tokenInput(fields.token, 'token')
  requireAfter(token.expiresAt, family.createdAt, 'token.expiresAt must be after createdAt')
  if (token.expiresAt.getTime() > family.absoluteExpiresAt.getTime()) {
    throw invalid('token.expiresAt must not be after absoluteExpiresAt')
  }
  return { family, token }
}

/** `rotate` input, validated and copied: `next.expiresAt` after `now`, `next` another digest. */
export function validateRotateRefreshToken(request: unknown): RotateRefreshTokenRequest {
  const fields = requireRecord(request, 'request')
  const copy = {
    presentedDigest: requireTokenDigest(fields.presentedDigest, 'presentedDigest'),
    next: tokenInput(fields.next, 'next'),
    now: requireInstant(fields.now, 'now'),
  }
  requireAfter(copy.next.expiresAt, copy.now, 'next.expiresAt must be after now')
  if (copy.next.digest === copy.presentedDigest) throw invalid('next.digest must differ from presentedDigest')
  return copy
}

/** `revoke` input: exactly one of `digest` and `familyId`, and `now`. */
export function validateRevokeRefreshFamily(
  request: unknown,
):
  | { readonly by: 'digest'; readonly digest: string; readonly now: Date }
  | { readonly by: 'family'; readonly familyId: string; readonly now: Date } {
  const fields = requireRecord(request, 'request')
  const byDigest = fields.digest !== undefined
  if (byDigest === (fields.familyId !== undefined)) {
    throw invalid('revoke needs exactly one of digest and familyId')
  }
  const now = requireInstant(fields.now, 'now')
  return byDigest
    ? { by: 'digest', digest: requireTokenDigest(fields.digest, 'digest'), now }
    : { by: 'family', familyId: requireStoreId(fields.familyId, 'familyId'), now }
}

/** `revokeAccount` input, validated and copied. */
export function validateRevokeAccountRefreshFamilies(request: unknown): RevokeAccountRefreshFamiliesRequest {
  const fields = requireRecord(request, 'request')
  return { accountId: requireStoreId(fields.accountId, 'accountId'), now: requireInstant(fields.now, 'now') }
}
