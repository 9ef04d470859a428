import type { CredentialRestrictions } from '../authentication/principal.js'
import { isStrictIdentifier } from '../jwks/strict-identifier.js'
import { ApiKeyError } from './api-key-error.js'
import { isApiKeyId } from './api-key-format.js'

/** What a store keeps for one API key. Only the digest of the secret is stored, never the key. */
export interface ApiKeyRecord {
  readonly keyId: string
  /** The principal the key acts for. */
  readonly ownerId: string
  readonly ownerKind: 'user' | 'service'
  /** HMAC-SHA256 digest, 32 bytes. */
  readonly digest: Uint8Array
  /** Version of the pepper the digest was made with. */
  readonly pepperVersion: string
  /** What the key may do at most; narrows the owner's authorization snapshot. `{}` = no narrowing. */
  readonly restrictions: CredentialRestrictions
  /** A non-secret name for humans ("CI deploy key"). */
  readonly label?: string
  readonly createdAt: Date
  /** Exclusive: the key is dead at `expiresAt`. */
  readonly expiresAt?: Date
  /** Exclusive: revoked from `revokedAt` on, unless still inside `overlapUntil`. */
  readonly revokedAt?: Date
  /** Inclusive end of the rotation overlap; only with `revokedAt`, and never after `expiresAt`. */
  readonly overlapUntil?: Date
  readonly lastUsedAt?: Date
}

export type ApiKeyStatus = 'active' | 'overlap' | 'expired' | 'revoked'

/** The lifecycle fields `apiKeyStatus` reads: a record, or a listing's `ApiKeySummary`. */
export type ApiKeyLifetime = Pick<ApiKeyRecord, 'expiresAt' | 'revokedAt' | 'overlapUntil'>

/** Validity at `now` (ms): expired at `expiresAt`; after `revokedAt`, alive only through `overlapUntil`. */
export function apiKeyStatus(record: ApiKeyLifetime, now: number): ApiKeyStatus {
  if (record.expiresAt !== undefined && now >= record.expiresAt.getTime()) return 'expired'
  if (record.revokedAt === undefined || now < record.revokedAt.getTime()) return 'active'
  if (record.overlapUntil !== undefined && now <= record.overlapUntil.getTime()) return 'overlap'
  return 'revoked'
}

/** When the key stops working, as far as is known now. */
export function apiKeyEnd(record: ApiKeyRecord): Date | undefined {
  const expires = record.expiresAt?.getTime()
  const stops =
    record.revokedAt === undefined ? undefined : (record.overlapUntil ?? record.revokedAt).getTime()
  if (stops === undefined) return expires === undefined ? undefined : new Date(expires)
  return new Date(expires === undefined ? stops : Math.min(expires, stops))
}

const isDate = (value: unknown): value is Date => value instanceof Date && !Number.isNaN(value.getTime())

function invalidRecord(message: string): never {
  throw new ApiKeyError('api_key.invalid_record', message)
}

function assertStringList(value: unknown, name: string): void {
  if (value === undefined) return
  if (!Array.isArray(value) || !value.every((item) => isStrictIdentifier(item, 256))) {
    invalidRecord(`restrictions.${name} must be a list of non-blank strings`)
  }
}

/** Checks restriction shapes: lists of non-blank, trimmed strings; `tenants` maps tenant ids to role lists. */
export function assertRestrictions(restrictions: CredentialRestrictions): void {
  if (typeof restrictions !== 'object' || restrictions === null)
    invalidRecord('restrictions must be an object')
  assertStringList(restrictions.scopes, 'scopes')
  assertStringList(restrictions.roles, 'roles')
  assertStringList(restrictions.capabilities, 'capabilities')
  assertStringList(restrictions.teams, 'teams')
  if (restrictions.tenants !== undefined) {
    if (typeof restrictions.tenants !== 'object' || restrictions.tenants === null)
      invalidRecord('restrictions.tenants must be an object')
    for (const [tenant, roles] of Object.entries(restrictions.tenants)) {
      if (!isStrictIdentifier(tenant, 256)) invalidRecord('restrictions.tenants has a blank tenant id')
      assertStringList(roles, 'tenants[]')
    }
  }
}

/** The record invariants every store may rely on; throws `ApiKeyError` (`api_key.invalid_record`). */
export function assertApiKeyRecord(record: ApiKeyRecord): void {
  if (!isApiKeyId(record.keyId)) invalidRecord('keyId must be 16 canonical base64url characters')
  if (!isStrictIdentifier(record.ownerId)) invalidRecord('ownerId must be a non-blank string')
  if (record.ownerKind !== 'user' && record.ownerKind !== 'service')
    invalidRecord('ownerKind must be user or service')
  if (!(record.digest instanceof Uint8Array) || record.digest.byteLength !== 32)
    invalidRecord('digest must be 32 bytes')
  if (!isStrictIdentifier(record.pepperVersion, 32)) invalidRecord('pepperVersion must be a non-blank string')
  if (record.label !== undefined && !isStrictIdentifier(record.label, 200))
    invalidRecord('label must be a non-blank string')
  assertRestrictions(record.restrictions)
  if (!isDate(record.createdAt)) invalidRecord('createdAt must be a valid date')
  for (const name of ['expiresAt', 'revokedAt', 'overlapUntil', 'lastUsedAt'] as const) {
    const value = record[name]
    if (value !== undefined && !isDate(value)) invalidRecord(`${name} must be a valid date`)
  }
  if (record.expiresAt !== undefined && record.expiresAt <= record.createdAt)
    invalidRecord('expiresAt must be after createdAt')
  if (record.overlapUntil !== undefined) {
    if (record.revokedAt === undefined) invalidRecord('overlapUntil requires revokedAt')
    if (record.overlapUntil < record.revokedAt) invalidRecord('overlapUntil must not be before revokedAt')
    if (record.expiresAt !== undefined && record.overlapUntil > record.expiresAt) {
      invalidRecord('overlapUntil must not be after expiresAt')
    }
  }
}
