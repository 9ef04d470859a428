import type { CredentialRestrictions } from '@portcullis/core'
import { sql } from 'drizzle-orm'
import { check, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core'
import { bytea, instant } from '../columns/columns.js'

// Drizzle view of the table created by migration 0003, constraints and index included, so that a
// schema generated from this file matches the hand-written SQL.

export const apiKeysTable = pgTable(
  'portcullis_api_keys',
  {
    keyId: text('key_id').primaryKey(),
    ownerId: text('owner_id').notNull(),
    ownerKind: text('owner_kind').$type<'user' | 'service'>().notNull(),
    digest: bytea('digest').notNull(),
    pepperVersion: text('pepper_version').notNull(),
    restrictions: jsonb('restrictions').$type<CredentialRestrictions>().notNull(),
    label: text('label'),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at'),
    revokedAt: instant('revoked_at'),
    overlapUntil: instant('overlap_until'),
    lastUsedAt: instant('last_used_at'),
  },
  (table) => [
    check('portcullis_api_keys_owner_kind_check', sql`${table.ownerKind} in ('user', 'service')`),
    check('portcullis_api_keys_digest_check', sql`octet_length(${table.digest}) = 32`),
    check('portcullis_api_keys_restrictions_check', sql`jsonb_typeof(${table.restrictions}) = 'object'`),
    check('portcullis_api_keys_expires_at_check', sql`${table.expiresAt} > ${table.createdAt}`),
    check(
      'portcullis_api_keys_overlap_until_check',
      sql`${table.overlapUntil} is null or (${table.revokedAt} is not null and ${table.overlapUntil} >= ${table.revokedAt} and (${table.expiresAt} is null or ${table.overlapUntil} <= ${table.expiresAt}))`,
    ),
    index('portcullis_api_keys_expires_at_idx').on(table.expiresAt),
    // An owner's keys: listing them and deleting them with their account.
    index('portcullis_api_keys_owner_idx').on(table.ownerId, table.ownerKind),
  ],
)

export type ApiKeyRow = typeof apiKeysTable.$inferSelect
