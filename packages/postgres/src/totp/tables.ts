import { sql } from 'drizzle-orm'
import { bigint, check, foreignKey, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { instant } from '../columns/columns.js'

/**
 * One TOTP enrollment per account: the secret only as a protector envelope, and the highest time step a
 * code was accepted for (the one-time record that refuses replays on every instance).
 */
export const totpEnrollmentsTable = pgTable(
  'portcullis_totp_enrollments',
  {
    accountId: text('account_id').primaryKey(),
    sealedSecret: text('sealed_secret').notNull(),
    status: text('status', { enum: ['pending', 'enabled'] }).notNull(),
    createdAt: instant('created_at').notNull(),
    enabledAt: instant('enabled_at'),
    lastUsedStep: bigint('last_used_step', { mode: 'number' }),
  },
  (table) => [
    check('portcullis_totp_enrollments_status_check', sql`${table.status} in ('pending', 'enabled')`),
    check(
      'portcullis_totp_enrollments_enabled_check',
      sql`(${table.status} = 'enabled') = (${table.enabledAt} is not null)`,
    ),
    check('portcullis_totp_enrollments_step_check', sql`${table.lastUsedStep} >= 0`),
  ],
)

/** Unused recovery codes, as peppered digests; they go with their enrollment. */
export const recoveryCodesTable = pgTable(
  'portcullis_recovery_codes',
  {
    accountId: text('account_id').notNull(),
    digest: text('digest').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (table) => [
    primaryKey({ name: 'portcullis_recovery_codes_pkey', columns: [table.accountId, table.digest] }),
    foreignKey({
      name: 'portcullis_recovery_codes_account_id_fkey',
      columns: [table.accountId],
      foreignColumns: [totpEnrollmentsTable.accountId],
    }).onDelete('cascade'),
  ],
)
