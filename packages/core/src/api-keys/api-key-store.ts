import type { WithSecurityLog } from '../security-log/in-transaction.js'
import type { ApiKeyRecord } from './api-key-record.js'

export interface ApiKeyRotation {
  readonly currentKeyId: string
  readonly replacement: ApiKeyRecord
  /** End of the overlap (inclusive); the store clamps it to the current key's `expiresAt`. None: dies now. */
  readonly overlapUntil?: Date
  readonly now: Date
}

export interface ApiKeyUsage {
  readonly keyId: string
  readonly usedAt: Date
}

/**
 * Port: where API key records live. Every operation is atomic. Errors are `ApiKeyError`s with the codes
 * below; any other throw is treated as the store being unavailable (503).
 */
export interface ApiKeyStore {
  /**
   * The record, or `undefined`. Returns a copy: mutating it never changes the store. An in-process store
   * may answer synchronously; this is the one read on the request path.
   */
  get(keyId: string): ApiKeyRecord | undefined | Promise<ApiKeyRecord | undefined>
  /** Inserts; `api_key.duplicate_key_id` if the id exists. */
  create(record: ApiKeyRecord): Promise<void>
  /**
   * In one atomic step: the current key must exist (`api_key.not_found`), be neither revoked nor expired
   * at `now` (`api_key.not_active`), and the replacement id must be new (`api_key.duplicate_key_id`);
   * then current gets `revokedAt = now`, `overlapUntil = min(overlapUntil, current.expiresAt)`, and the
   * replacement is inserted. Of concurrent rotations of one key exactly one succeeds; a failure changes nothing.
   */
  rotate(rotation: ApiKeyRotation): Promise<void>
  /**
   * Sets `revokedAt` (keeping an earlier one) and ends any overlap now; `api_key.not_found` if missing.
   * `change.securityLog` entries are written in the same step (stores with `securityLogInTransaction`).
   */
  revoke(keyId: string, now: Date, change?: WithSecurityLog): Promise<void>
  /** Moves `lastUsedAt` forward (never back); unknown ids are ignored. */
  recordUsage(usage: readonly ApiKeyUsage[]): Promise<void>
}
