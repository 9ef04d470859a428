import { ConfigurationError } from '@portcullis/core'
import {
  type ApiKeyDirectory,
  ApiKeyError,
  type ApiKeyListOptions,
  type ApiKeyOwner,
  type ApiKeyRecord,
  type ApiKeyRotation,
  type ApiKeyStore,
  type ApiKeySummary,
  type ApiKeyUsage,
  assertApiKeyRecord,
} from '@portcullis/core/api-keys'
import { validateSecurityLogEntries, type WithSecurityLog } from '@portcullis/core/security-log'
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement, inTransaction, type Transaction } from '../client/transaction.js'
import { notifyRevocations, revocationChannel } from '../revocation/channel.js'
import { insertSecurityLogEntries } from '../security-log/store.js'
import { listApiKeysByOwner } from './listing.js'
import { findApiKeyRow } from './lookup.js'
import { toRecord, toRow } from './records.js'
import { apiKeysTable as keys } from './tables.js'
import { recordApiKeyUsage } from './usage.js'

export interface PostgresApiKeyStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db' | 'pool' | 'preparedStatements' | 'schema'>
}

const notFound = () => new ApiKeyError('api_key.not_found', 'API key not found')
const notActive = () => new ApiKeyError('api_key.not_active', 'API key is already revoked or expired')
const duplicate = () => new ApiKeyError('api_key.duplicate_key_id', 'API key id already exists')

async function exists(tx: Transaction, keyId: string): Promise<boolean> {
  const [row] = await tx.select({ keyId: keys.keyId }).from(keys).where(eq(keys.keyId, keyId))
  return row !== undefined
}

/** Why `keyId` cannot be rotated at `now` (missing, revoked or expired), or undefined when it can. */
async function refusal(tx: Transaction, keyId: string, now: Date): Promise<ApiKeyError | undefined> {
  const [row] = await tx
    .select({ revokedAt: keys.revokedAt, expiresAt: keys.expiresAt })
    .from(keys)
    .where(eq(keys.keyId, keyId))
  if (row === undefined) return notFound()
  if (row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now)) return notActive()
  return undefined
}

/** Key ids are short opaque strings; anything else cannot have been stored, so it costs no lookup. */
function isKeyId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 256
}

function requireDate(value: unknown, name: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new ApiKeyError('api_key.invalid_input', `${name} must be a valid date`)
  }
  return value
}

function requireRecord(record: ApiKeyRecord): ApiKeyRecord {
  if (typeof record !== 'object' || record === null) {
    throw new ApiKeyError('api_key.invalid_record', 'record must be an object')
  }
  assertApiKeyRecord(record)
  return record
}

/**
 * The durable `ApiKeyStore`. Rows hold the HMAC digest of each key and never the key. `get` (the one
 * read per request) is a primary-key SELECT, a named prepared statement unless the client turns them
 * off; `create` and `revoke` are one statement each; `rotate` is one transaction whose conditional
 * UPDATE lets exactly one of concurrent rotations through, on any number of app instances; a batch of
 * usage is one UPDATE that only moves `lastUsedAt` forward. `revoke` and `rotate` send the revoked key's
 * `api-key` notice in their transaction, so every instance's verified-lookup cache evicts it.
 */
export class PostgresApiKeyStore implements ApiKeyStore, ApiKeyDirectory {
  readonly #client: PostgresApiKeyStoreOptions['client']
  readonly #preparedStatements: boolean
  readonly #channel: string

  constructor(options: PostgresApiKeyStoreOptions) {
    const client = options?.client
    if (typeof client?.db?.transaction !== 'function' || typeof client.pool?.connect !== 'function') {
      throw new ConfigurationError(
        'api_key.store_options',
        'PostgresApiKeyStore needs a client from createPostgresClient',
      )
    }
    this.#client = client
    this.#preparedStatements = client.preparedStatements !== false
    this.#channel = revocationChannel(client.schema)
  }

  async get(keyId: string): Promise<ApiKeyRecord | undefined> {
    if (!isKeyId(keyId)) return undefined
    const row = await findApiKeyRow(this.#client.db, this.#preparedStatements, keyId)
    return row === undefined ? undefined : toRecord(row)
  }

  async create(record: ApiKeyRecord): Promise<void> {
    const row = toRow(requireRecord(record))
    const inserted = await inStatement(() =>
      this.#client.db.insert(keys).values(row).onConflictDoNothing().returning({ keyId: keys.keyId }),
    )
    if (inserted.length === 0) throw duplicate()
  }

  async rotate(rotation: ApiKeyRotation): Promise<void> {
    const { currentKeyId, overlapUntil } = rotation ?? ({} as Partial<ApiKeyRotation>)
    const replacement = toRow(requireRecord(rotation?.replacement as ApiKeyRecord))
    const now = requireDate(rotation?.now, 'now')
    const overlap = overlapUntil === undefined ? undefined : requireDate(overlapUntil, 'overlapUntil')
    if (!isKeyId(currentKeyId)) throw notFound()
    await inTransaction(this.#client.pool, async (tx) => {
      if (overlap !== undefined && overlap < now) {
        // Refused either way; the reasons come in the order the memory store gives them.
        throw (
          (await refusal(tx, currentKeyId, now)) ??
          ((await exists(tx, replacement.keyId)) ? duplicate() : undefined) ??
          new ApiKeyError('api_key.invalid_record', 'overlapUntil must not be before revokedAt')
        )
      }
      // Conditional on the key being active: a concurrent rotation waits on the row lock, then finds
      // it revoked and matches nothing. A later failure in this transaction rolls the revocation back.
      const revoked = await tx
        .update(keys)
        .set({
          revokedAt: now,
          overlapUntil:
            overlap === undefined
              ? null
              : sql`least(${overlap.toISOString()}::timestamptz, ${keys.expiresAt})`,
        })
        .where(
          and(
            eq(keys.keyId, currentKeyId),
            isNull(keys.revokedAt),
            or(isNull(keys.expiresAt), gt(keys.expiresAt, now)),
          ),
        )
        .returning({ keyId: keys.keyId })
      if (revoked.length === 0) throw (await refusal(tx, currentKeyId, now)) ?? notActive()
      const inserted = await tx
        .insert(keys)
        .values(replacement)
        .onConflictDoNothing()
        .returning({ keyId: keys.keyId })
      if (inserted.length === 0)
        throw new ApiKeyError('api_key.duplicate_key_id', 'API key id already exists')
      await notifyRevocations(tx, this.#channel, [{ kind: 'api-key', keyId: currentKeyId }])
    })
  }

  /** `revoke` writes a change's `securityLog` entries in its transaction (the same database's log). */
  readonly securityLogInTransaction = true

  async revoke(keyId: string, now: Date, change?: WithSecurityLog): Promise<void> {
    const at = requireDate(now, 'now')
    const entries = validateSecurityLogEntries(change?.securityLog)
    if (!isKeyId(keyId)) throw notFound()
    await inTransaction(this.#client.pool, async (tx) => {
      const revoked = await tx
        .update(keys)
        // least() skips a null: an earlier revocation is kept, otherwise it is now.
        .set({
          revokedAt: sql`least(${keys.revokedAt}, ${at.toISOString()}::timestamptz)`,
          overlapUntil: null,
        })
        .where(eq(keys.keyId, keyId))
        .returning({ keyId: keys.keyId })
      if (revoked.length === 0) throw notFound()
      await notifyRevocations(tx, this.#channel, [{ kind: 'api-key', keyId }])
      await insertSecurityLogEntries(tx, entries)
    })
  }

  listByOwner(owner: ApiKeyOwner, options?: ApiKeyListOptions): Promise<readonly ApiKeySummary[]> {
    return listApiKeysByOwner(this.#client.db, owner, options)
  }

  recordUsage(usage: readonly ApiKeyUsage[]): Promise<void> {
    return recordApiKeyUsage(this.#client.pool, usage)
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresApiKeyStore {}'
  }
}
