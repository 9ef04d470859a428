import { type ApiKeyRecord, type ApiKeyStatus, apiKeyStatus } from '@portcullis/core/api-keys'
import type { CredentialRestrictions } from '@portcullis/core/authentication'
import type { PostgresClient } from '@portcullis/postgres'

/** One key as the API-key page lists it: metadata only (the store never had the key itself). */
export interface OwnedKey {
  readonly keyId: string
  readonly label: string | undefined
  readonly status: ApiKeyStatus
  readonly restrictions: CredentialRestrictions
  readonly createdAt: Date
  readonly expiresAt: Date | undefined
  readonly revokedAt: Date | undefined
  readonly overlapUntil: Date | undefined
  readonly lastUsedAt: Date | undefined
}

interface Row {
  key_id: string
  label: string | null
  restrictions: CredentialRestrictions
  created_at: Date
  expires_at: Date | null
  revoked_at: Date | null
  overlap_until: Date | null
  last_used_at: Date | null
}

const optional = (value: Date | null) => value ?? undefined

/**
 * The owner's keys, newest first. The `ApiKeyStore` port has no listing (the request path never needs
 * one), so the page reads the Postgres table the store writes; a real application keeps its own index.
 */
export async function listOwnedKeys(
  postgres: Pick<PostgresClient, 'pool'>,
  ownerId: string,
  now = Date.now(),
): Promise<readonly OwnedKey[]> {
  const { rows } = await postgres.pool.query<Row>(
    `select key_id, label, restrictions, created_at, expires_at, revoked_at, overlap_until, last_used_at
       from portcullis_api_keys where owner_id = $1 order by created_at desc, key_id limit 100`,
    [ownerId],
  )
  return rows.map((row) => {
    const lifetime = {
      expiresAt: optional(row.expires_at),
      revokedAt: optional(row.revoked_at),
      overlapUntil: optional(row.overlap_until),
    }
    return {
      keyId: row.key_id,
      label: row.label ?? undefined,
      // apiKeyStatus reads only the three lifetime fields.
      status: apiKeyStatus(lifetime as ApiKeyRecord, now),
      restrictions: row.restrictions,
      createdAt: row.created_at,
      lastUsedAt: optional(row.last_used_at),
      ...lifetime,
    }
  })
}
