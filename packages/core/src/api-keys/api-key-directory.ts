import type { CredentialRestrictions } from '../authentication/principal.js'
import { isStrictIdentifier } from '../jwks/strict-identifier.js'
import { ApiKeyError } from './api-key-error.js'
import type { ApiKeyRecord } from './api-key-record.js'

/** The principal whose keys are listed: the same pair a key authenticates as. */
export interface ApiKeyOwner {
  readonly ownerId: string
  readonly ownerKind: 'user' | 'service'
}

/**
 * What a listing shows of one key: its metadata and lifecycle, never the digest, the pepper version or
 * anything else derived from the secret. `apiKeyStatus(summary, now)` gives its state.
 */
export interface ApiKeySummary {
  readonly keyId: string
  readonly ownerId: string
  readonly ownerKind: 'user' | 'service'
  readonly label?: string
  readonly restrictions: CredentialRestrictions
  readonly createdAt: Date
  readonly expiresAt?: Date
  /** Set once the key is revoked or rotated; a rotated key also has `overlapUntil`. */
  readonly revokedAt?: Date
  readonly overlapUntil?: Date
  readonly lastUsedAt?: Date
}

export interface ApiKeyListOptions {
  /** Most keys returned, 1..1000. Default 100. */
  readonly limit?: number
  /** Continue after this key of an earlier page (its `createdAt` and `keyId`). */
  readonly after?: Pick<ApiKeySummary, 'createdAt' | 'keyId'>
}

/**
 * Port: the keys of one owner, for management pages and audits (never on the request path). A separate
 * port over the same records as `ApiKeyStore`, which stays the small request-path contract; the built-in
 * stores implement both.
 */
export interface ApiKeyDirectory {
  /**
   * The owner's keys (exactly that `ownerId` and `ownerKind`), newest first: `createdAt` descending, ties
   * by `keyId` ascending in code-point order. Revoked, rotated and expired keys are included with their
   * lifecycle fields. Bad input is `api_key.invalid_input`.
   */
  listByOwner(owner: ApiKeyOwner, options?: ApiKeyListOptions): Promise<readonly ApiKeySummary[]>
}

/** A listing request after validation. */
export interface ApiKeyListRequest {
  readonly ownerId: string
  readonly ownerKind: 'user' | 'service'
  readonly limit: number
  readonly after?: { readonly createdAt: Date; readonly keyId: string }
}

export const DEFAULT_API_KEY_LIST_LIMIT = 100
export const MAX_API_KEY_LIST_LIMIT = 1000

function invalid(message: string): never {
  throw new ApiKeyError('api_key.invalid_input', message)
}

/** Validates a `listByOwner` call; every store applies the same rules. */
export function requireApiKeyListRequest(
  owner: ApiKeyOwner,
  options: ApiKeyListOptions | undefined,
): ApiKeyListRequest {
  if (typeof owner !== 'object' || owner === null) invalid('owner must be an object')
  if (!isStrictIdentifier(owner.ownerId)) invalid('ownerId must be a non-blank string')
  if (owner.ownerKind !== 'user' && owner.ownerKind !== 'service')
    invalid('ownerKind must be user or service')
  if (options !== undefined && (typeof options !== 'object' || options === null))
    invalid('options must be an object')
  const limit = options?.limit ?? DEFAULT_API_KEY_LIST_LIMIT
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_API_KEY_LIST_LIMIT) {
    invalid(`limit must be an integer from 1 to ${MAX_API_KEY_LIST_LIMIT}`)
  }
  const after = options?.after
  if (after === undefined) return { ownerId: owner.ownerId, ownerKind: owner.ownerKind, limit }
  const createdAt: unknown = after?.createdAt
  if (!(createdAt instanceof Date) || Number.isNaN(createdAt.getTime()))
    invalid('after.createdAt must be a valid date')
  if (!isStrictIdentifier(after.keyId, 256)) invalid('after.keyId must be a non-blank string')
  return {
    ownerId: owner.ownerId,
    ownerKind: owner.ownerKind,
    limit,
    after: { createdAt: new Date(createdAt), keyId: after.keyId },
  }
}

/** Newest first, ties by key id in code-point order: the order every `listByOwner` returns. */
export function compareApiKeysNewestFirst(
  a: Pick<ApiKeySummary, 'createdAt' | 'keyId'>,
  b: Pick<ApiKeySummary, 'createdAt' | 'keyId'>,
): number {
  const byTime = b.createdAt.getTime() - a.createdAt.getTime()
  if (byTime !== 0) return byTime
  return a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0
}

function copyRestrictions(restrictions: CredentialRestrictions): CredentialRestrictions {
  return JSON.parse(JSON.stringify(restrictions)) as CredentialRestrictions
}

/** The listing view of a record: fresh objects, and nothing derived from the secret. */
export function apiKeySummary(record: ApiKeyRecord): ApiKeySummary {
  const summary: { -readonly [K in keyof ApiKeySummary]: ApiKeySummary[K] } = {
    keyId: record.keyId,
    ownerId: record.ownerId,
    ownerKind: record.ownerKind,
    restrictions: copyRestrictions(record.restrictions),
    createdAt: new Date(record.createdAt),
  }
  if (record.label !== undefined) summary.label = record.label
  if (record.expiresAt !== undefined) summary.expiresAt = new Date(record.expiresAt)
  if (record.revokedAt !== undefined) summary.revokedAt = new Date(record.revokedAt)
  if (record.overlapUntil !== undefined) summary.overlapUntil = new Date(record.overlapUntil)
  if (record.lastUsedAt !== undefined) summary.lastUsedAt = new Date(record.lastUsedAt)
  return summary
}
