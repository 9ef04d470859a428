import { type SQL, sql } from 'drizzle-orm'
import {
  type AnyPgColumn,
  bigint,
  check,
  foreignKey,
  index,
  pgTable,
  text,
  unique,
} from 'drizzle-orm/pg-core'
import { instant } from '../columns/columns.js'

// Sessions, refresh-token families and rate limits (migration 0005 created them by hand; the accounts
// and passwords they belong to are in ../accounts/tables.ts).

/**
 * The two tag slots of a session handle: its first two 11-character runs (`providerSessionTags` puts the
 * subject's tag, then the provider session's, there). Each slot has a B-tree expression index, and
 * `revoke({ handleTags })` matches with exactly these expressions.
 */
export const handleTagSlots = (handle: AnyPgColumn): readonly [SQL, SQL] => [
  sql`left(${handle}, 11)`,
  sql`substr(${handle}, 12, 11)`,
]

export const sessionsTable = pgTable(
  'portcullis_sessions',
  {
    digest: text('digest').primaryKey(),
    handle: text('handle').notNull(),
    accountId: text('account_id').notNull(),
    securityEpoch: bigint('security_epoch', { mode: 'number' }).notNull(),
    createdAt: instant('created_at').notNull(),
    lastSeenAt: instant('last_seen_at').notNull(),
    idleExpiresAt: instant('idle_expires_at').notNull(),
    absoluteExpiresAt: instant('absolute_expires_at').notNull(),
    userAgent: text('user_agent'),
    clientAddress: text('client_address'),
    // The organization the person chose to work in (a choice only: memberships are read elsewhere).
    activeOrganizationId: text('active_organization_id'),
  },
  (table) => [
    unique('portcullis_sessions_account_handle_key').on(table.accountId, table.handle),
    check('portcullis_sessions_security_epoch_check', sql`${table.securityEpoch} >= 0`),
    check(
      'portcullis_sessions_idle_expires_at_check',
      sql`${table.idleExpiresAt} <= ${table.absoluteExpiresAt}`,
    ),
    index('portcullis_sessions_idle_expires_at_idx').on(table.idleExpiresAt),
    // A back-channel logout's lookup (`revoke({ handleTags })`): each tag slot of the handle.
    index('portcullis_sessions_handle_tag_1_idx').on(handleTagSlots(table.handle)[0]),
    index('portcullis_sessions_handle_tag_2_idx').on(handleTagSlots(table.handle)[1]),
  ],
)

export const refreshFamiliesTable = pgTable(
  'portcullis_refresh_families',
  {
    familyId: text('family_id').primaryKey(),
    accountId: text('account_id').notNull(),
    securityEpoch: bigint('security_epoch', { mode: 'number' }).notNull(),
    createdAt: instant('created_at').notNull(),
    absoluteExpiresAt: instant('absolute_expires_at').notNull(),
    revokedAt: instant('revoked_at'),
  },
  (table) => [
    check('portcullis_refresh_families_security_epoch_check', sql`${table.securityEpoch} >= 0`),
    check(
      'portcullis_refresh_families_absolute_expires_at_check',
      sql`${table.absoluteExpiresAt} > ${table.createdAt}`,
    ),
    index('portcullis_refresh_families_account_id_idx').on(table.accountId),
    index('portcullis_refresh_families_absolute_expires_at_idx').on(table.absoluteExpiresAt),
  ],
)

export const refreshTokensTable = pgTable(
  'portcullis_refresh_tokens',
  {
    digest: text('digest').primaryKey(),
    familyId: text('family_id').notNull(),
    issuedAt: instant('issued_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    rotatedAt: instant('rotated_at'),
  },
  (table) => [
    foreignKey({
      name: 'portcullis_refresh_tokens_family_id_fkey',
      columns: [table.familyId],
      foreignColumns: [refreshFamiliesTable.familyId],
    }).onDelete('cascade'),
    index('portcullis_refresh_tokens_family_id_idx').on(table.familyId),
  ],
)

export const rateLimitsTable = pgTable(
  'portcullis_rate_limits',
  {
    limitKey: text('limit_key').primaryKey(),
    attempts: bigint('attempts', { mode: 'number' }).notNull(),
    resetAt: instant('reset_at').notNull(),
  },
  (table) => [
    check('portcullis_rate_limits_attempts_check', sql`${table.attempts} >= 1`),
    index('portcullis_rate_limits_reset_at_idx').on(table.resetAt),
  ],
)

export type SessionRow = typeof sessionsTable.$inferSelect
export type RefreshFamilyRow = typeof refreshFamiliesTable.$inferSelect
