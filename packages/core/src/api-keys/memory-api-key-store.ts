import type { CredentialRestrictions } from '../authentication/principal.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import {
  stageSecurityLog,
  validateSecurityLogEntries,
  type WithSecurityLog,
} from '../security-log/in-transaction.js'
import type { MemorySecurityLog } from '../security-log/memory.js'
import {
  type ApiKeyDirectory,
  type ApiKeyListOptions,
  type ApiKeyOwner,
  type ApiKeySummary,
  apiKeySummary,
  compareApiKeysNewestFirst,
  requireApiKeyListRequest,
} from './api-key-directory.js'
import { ApiKeyError } from './api-key-error.js'
import { type ApiKeyRecord, apiKeyStatus, assertApiKeyRecord } from './api-key-record.js'
import type { ApiKeyRotation, ApiKeyStore, ApiKeyUsage } from './api-key-store.js'

function copyRestrictions(restrictions: CredentialRestrictions): CredentialRestrictions {
  const { scopes, roles, capabilities, teams, tenants } = restrictions
  const copied: { -readonly [K in keyof CredentialRestrictions]: CredentialRestrictions[K] } = {}
  if (scopes !== undefined) copied.scopes = [...scopes]
  if (roles !== undefined) copied.roles = [...roles]
  if (capabilities !== undefined) copied.capabilities = [...capabilities]
  if (teams !== undefined) copied.teams = [...teams]
  if (tenants !== undefined) {
    copied.tenants = Object.fromEntries(Object.entries(tenants).map(([tenant, list]) => [tenant, [...list]]))
  }
  return copied
}

/** A deep copy: records in the store and records handed out never share mutable parts. */
function copy(record: ApiKeyRecord): ApiKeyRecord {
  const result: { -readonly [K in keyof ApiKeyRecord]: ApiKeyRecord[K] } = {
    keyId: record.keyId,
    ownerId: record.ownerId,
    ownerKind: record.ownerKind,
    digest: new Uint8Array(record.digest),
    pepperVersion: record.pepperVersion,
    restrictions: copyRestrictions(record.restrictions),
    createdAt: new Date(record.createdAt),
  }
  if (record.expiresAt !== undefined) result.expiresAt = new Date(record.expiresAt)
  if (record.revokedAt !== undefined) result.revokedAt = new Date(record.revokedAt)
  if (record.overlapUntil !== undefined) result.overlapUntil = new Date(record.overlapUntil)
  if (record.lastUsedAt !== undefined) result.lastUsedAt = new Date(record.lastUsedAt)
  if (record.label !== undefined) result.label = record.label
  return result
}

export interface MemoryApiKeyStoreOptions {
  /**
   * Where revocations are announced: a revoked key, and the current key of a rotation, are published as
   * `api-key` notices before the call resolves. Give the same `MemoryRevocationNotices` to
   * `ApiKeyService({ notices })` for its verified-lookup cache.
   */
  readonly notices?: RevocationNotices
  /** Where a revocation's `securityLog` entries are written, in its step (`WithSecurityLog`). */
  readonly securityLog?: MemorySecurityLog
}

/**
 * The in-process `ApiKeyStore` (and `ApiKeyDirectory`) for tests, demos and single-instance apps. Each
 * operation runs without awaiting between its checks and its writes, which makes it atomic on the event loop.
 */
export class MemoryApiKeyStore implements ApiKeyStore, ApiKeyDirectory {
  readonly #records = new Map<string, ApiKeyRecord>()
  readonly #notices: RevocationNotices | undefined
  readonly #securityLog: MemorySecurityLog | undefined

  constructor(options: MemoryApiKeyStoreOptions = {}) {
    this.#notices = options.notices
    this.#securityLog = options.securityLog
  }

  get(keyId: string): ApiKeyRecord | undefined {
    const record = this.#records.get(keyId)
    return record === undefined ? undefined : copy(record)
  }

  async create(record: ApiKeyRecord): Promise<void> {
    assertApiKeyRecord(record)
    if (this.#records.has(record.keyId))
      throw new ApiKeyError('api_key.duplicate_key_id', 'API key id already exists')
    this.#records.set(record.keyId, copy(record))
  }

  async rotate({ currentKeyId, replacement, overlapUntil, now }: ApiKeyRotation): Promise<void> {
    assertApiKeyRecord(replacement)
    const current = this.#records.get(currentKeyId)
    if (current === undefined) throw new ApiKeyError('api_key.not_found', 'API key not found')
    if (current.revokedAt !== undefined || apiKeyStatus(current, now.getTime()) !== 'active') {
      throw new ApiKeyError('api_key.not_active', 'API key is already revoked or expired')
    }
    if (this.#records.has(replacement.keyId))
      throw new ApiKeyError('api_key.duplicate_key_id', 'API key id already exists')
    const { overlapUntil: _dropped, ...rest } = current
    const clamped =
      overlapUntil === undefined
        ? undefined
        : current.expiresAt !== undefined && current.expiresAt < overlapUntil
          ? current.expiresAt
          : overlapUntil
    const revoked: ApiKeyRecord = {
      ...rest,
      revokedAt: new Date(now),
      ...(clamped === undefined ? {} : { overlapUntil: new Date(clamped) }),
    }
    assertApiKeyRecord(revoked)
    this.#records.set(currentKeyId, revoked)
    this.#records.set(replacement.keyId, copy(replacement))
    await this.#notices?.publish({ kind: 'api-key', keyId: currentKeyId })
  }

  /** Whether `revoke` takes `securityLog` entries (a `MemorySecurityLog` was given). */
  get securityLogInTransaction(): boolean {
    return this.#securityLog !== undefined
  }

  async revoke(keyId: string, now: Date, change?: WithSecurityLog): Promise<void> {
    const writeLog = stageSecurityLog(
      this.#securityLog,
      validateSecurityLogEntries(change?.securityLog),
      'MemoryApiKeyStore',
    )
    const current = this.#records.get(keyId)
    if (current === undefined) throw new ApiKeyError('api_key.not_found', 'API key not found')
    const { overlapUntil: _ended, ...rest } = current
    const revokedAt = current.revokedAt !== undefined && current.revokedAt < now ? current.revokedAt : now
    this.#records.set(keyId, { ...rest, revokedAt: new Date(revokedAt) })
    writeLog()
    await this.#notices?.publish({ kind: 'api-key', keyId })
  }

  async listByOwner(owner: ApiKeyOwner, options?: ApiKeyListOptions): Promise<readonly ApiKeySummary[]> {
    const { ownerId, ownerKind, limit, after } = requireApiKeyListRequest(owner, options)
    return [...this.#records.values()]
      .filter((record) => record.ownerId === ownerId && record.ownerKind === ownerKind)
      .filter((record) => after === undefined || compareApiKeysNewestFirst(after, record) < 0)
      .sort(compareApiKeysNewestFirst)
      .slice(0, limit)
      .map(apiKeySummary)
  }

  async recordUsage(usage: readonly ApiKeyUsage[]): Promise<void> {
    for (const { keyId, usedAt } of usage) {
      const current = this.#records.get(keyId)
      if (current === undefined) continue
      if (current.lastUsedAt !== undefined && current.lastUsedAt >= usedAt) continue
      this.#records.set(keyId, { ...current, lastUsedAt: new Date(usedAt) })
    }
  }

  /**
   * Removes every key a user account owns (for `MemoryAccountStore({ cascade })`: an account deletion
   * takes its keys in the same step). Service keys are never touched. How many went.
   */
  deleteAccountData(accountId: string): number {
    const removed: string[] = []
    for (const [keyId, record] of this.#records) {
      if (record.ownerKind !== 'user' || record.ownerId !== accountId) continue
      this.#records.delete(keyId)
      removed.push(keyId)
    }
    // Delivered in this synchronous step (memory notices deliver before `publish` returns); a key id from
    // this store is always a valid notice, so the returned promise cannot reject.
    for (const keyId of removed) void this.#notices?.publish({ kind: 'api-key', keyId })
    return removed.length
  }
}
