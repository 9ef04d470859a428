import {
  type ApiKeyListOptions,
  type ApiKeyOwner,
  type ApiKeySummary,
  requireApiKeyListRequest,
} from '@portcullis/core/api-keys'
import { and, desc, eq, gt, lt, or, type SQL, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { inStatement } from '../client/transaction.js'
import { copyRestrictions } from './records.js'
import { apiKeysTable as keys } from './tables.js'

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** Key ids compare byte for byte (the "C" collation), as `listByOwner` promises: code-point order. */
const keyIdInCodePointOrder = sql`${keys.keyId} collate "C"`

/**
 * One statement: the owner's keys, newest first, continuing after `after`. Only metadata columns are
 * selected; the digest and pepper version never leave the database.
 */
export async function listApiKeysByOwner(
  db: NodePgDatabase,
  owner: ApiKeyOwner,
  options: ApiKeyListOptions | undefined,
): Promise<readonly ApiKeySummary[]> {
  const { ownerId, ownerKind, limit, after } = requireApiKeyListRequest(owner, options)
  const conditions: SQL[] = [eq(keys.ownerId, ownerId), eq(keys.ownerKind, ownerKind)]
  if (after !== undefined) {
    const continued = or(
      lt(keys.createdAt, after.createdAt),
      and(eq(keys.createdAt, after.createdAt), gt(keyIdInCodePointOrder, after.keyId)),
    )
    if (continued !== undefined) conditions.push(continued)
  }
  const rows = await inStatement(() =>
    db
      .select({
        keyId: keys.keyId,
        ownerId: keys.ownerId,
        ownerKind: keys.ownerKind,
        label: keys.label,
        restrictions: keys.restrictions,
        createdAt: keys.createdAt,
        expiresAt: keys.expiresAt,
        revokedAt: keys.revokedAt,
        overlapUntil: keys.overlapUntil,
        lastUsedAt: keys.lastUsedAt,
      })
      .from(keys)
      .where(and(...conditions))
      .orderBy(desc(keys.createdAt), keyIdInCodePointOrder)
      .limit(limit),
  )
  return rows.map((row) => {
    const summary: Mutable<ApiKeySummary> = {
      keyId: row.keyId,
      ownerId: row.ownerId,
      ownerKind: row.ownerKind,
      restrictions: copyRestrictions(row.restrictions),
      createdAt: row.createdAt,
    }
    if (row.label !== null) summary.label = row.label
    if (row.expiresAt !== null) summary.expiresAt = row.expiresAt
    if (row.revokedAt !== null) summary.revokedAt = row.revokedAt
    if (row.overlapUntil !== null) summary.overlapUntil = row.overlapUntil
    if (row.lastUsedAt !== null) summary.lastUsedAt = row.lastUsedAt
    return summary
  })
}
