import type { CredentialRestrictions } from '../authentication/principal.js'
import { ApiKeyError } from './api-key-error.js'
import { type ApiKeyRecord, apiKeyStatus, assertApiKeyRecord } from './api-key-record.js'
import type { ApiKeyRotation, ApiKeyStore, ApiKeyUsage } from './api-key-store.js'

const copyDate = (date: Date | undefined): Date | undefined =>
  date === undefined ? undefined : new Date(date)

function copyRestrictions(restrictions: CredentialRestrictions): CredentialRestrictions {
  const copied: { -readonly [K in keyof CredentialRestrictions]: CredentialRestrictions[K] } = {}
  for (const name of ['scopes', 'roles', 'capabilities', 'teams'] as const) {
    const list = restrictions[name]
    if (list !== undefined) copied[name] = [...list]
  }
  if (restrictions.tenants !== undefined) {
    copied.tenants = Object.fromEntries(
      Object.entries(restrictions.tenants).map(([tenant, roles]) => [tenant, [...roles]]),
    )
  }
  return copied
}

/** A deep copy: records in the store and records handed out never share mutable parts. */
function copy(record: ApiKeyRecord): ApiKeyRecord {
  const result: { -readonly [K in keyof ApiKeyRecord]: ApiKeyRecord[K] } = {
    ...record,
    digest: new Uint8Array(record.digest),
    restrictions: copyRestrictions(record.restrictions),
    createdAt: new Date(record.createdAt),
  }
  for (const name of ['expiresAt', 'revokedAt', 'overlapUntil', 'lastUsedAt'] as const) {
    const date = copyDate(record[name])
    if (date === undefined) delete result[name]
    else result[name] = date
  }
  return result
}

/**
 * The in-process `ApiKeyStore` for tests, demos and single-instance apps. Each operation runs without
 * awaiting between its checks and its writes, which makes it atomic on the event loop.
 */
export class MemoryApiKeyStore implements ApiKeyStore {
  readonly #records = new Map<string, ApiKeyRecord>()

  async get(keyId: string): Promise<ApiKeyRecord | undefined> {
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
  }

  async revoke(keyId: string, now: Date): Promise<void> {
    const current = this.#records.get(keyId)
    if (current === undefined) throw new ApiKeyError('api_key.not_found', 'API key not found')
    const { overlapUntil: _ended, ...rest } = current
    const revokedAt = current.revokedAt !== undefined && current.revokedAt < now ? current.revokedAt : now
    this.#records.set(keyId, { ...rest, revokedAt: new Date(revokedAt) })
  }

  async recordUsage(usage: readonly ApiKeyUsage[]): Promise<void> {
    for (const { keyId, usedAt } of usage) {
      const current = this.#records.get(keyId)
      if (current === undefined) continue
      if (current.lastUsedAt !== undefined && current.lastUsedAt >= usedAt) continue
      this.#records.set(keyId, { ...current, lastUsedAt: new Date(usedAt) })
    }
  }
}
