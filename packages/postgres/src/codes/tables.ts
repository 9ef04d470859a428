import { sql } from 'drizzle-orm'
import { check, foreignKey, index, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { accountsTable } from '../accounts/tables.js'
import { bytea, instant } from '../columns/columns.js'

// One-time codes (verification, reset, email change and its undo, sign-in, invitation), stored as HMAC
// digests under a key version and bound to a flow id, a purpose, an account (or none, for an address
// without one) and an address. A code of an account goes with the account (on delete cascade).

export const oneTimeCodesTable = pgTable(
  'portcullis_one_time_codes',
  {
    id: text('id').primaryKey(),
    purpose: text('purpose').notNull(),
    accountId: text('account_id'),
    address: text('address').notNull(),
    digest: bytea('digest').notNull(),
    keyVersion: integer('key_version').notNull(),
    attempts: integer('attempts').notNull(),
    maxAttempts: integer('max_attempts').notNull(),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    payload: text('payload'),
  },
  (table) => [
    foreignKey({
      name: 'portcullis_one_time_codes_account_id_fkey',
      columns: [table.accountId],
      foreignColumns: [accountsTable.accountId],
    }).onDelete('cascade'),
    check(
      'portcullis_one_time_codes_purpose_check',
      sql`${table.purpose} in ('email-verification', 'password-reset', 'email-change', 'email-change-undo', 'sign-in', 'invitation')`,
    ),
    check('portcullis_one_time_codes_id_check', sql`${table.id} ~ '^[A-Za-z0-9_-]{22,64}$'`),
    check('portcullis_one_time_codes_address_check', sql`octet_length(${table.address}) <= 254`),
    check('portcullis_one_time_codes_digest_check', sql`octet_length(${table.digest}) = 32`),
    check('portcullis_one_time_codes_key_version_check', sql`${table.keyVersion} >= 0`),
    check(
      'portcullis_one_time_codes_attempts_check',
      sql`${table.attempts} >= 0 and ${table.attempts} < ${table.maxAttempts} and ${table.maxAttempts} between 1 and 100`,
    ),
    check('portcullis_one_time_codes_expires_at_check', sql`${table.expiresAt} > ${table.createdAt}`),
    // Supersede and revoke of an account's codes, and the cascade from the account (account first, so
    // one index serves "every purpose" and "one purpose").
    index('portcullis_one_time_codes_account_idx')
      .on(table.accountId, table.purpose)
      .where(sql`${table.accountId} is not null`),
    // Supersede of the codes sent to an address that has no account.
    index('portcullis_one_time_codes_address_idx')
      .on(table.purpose, table.address)
      .where(sql`${table.accountId} is null`),
    // The bounded sweep walks expired codes oldest first.
    index('portcullis_one_time_codes_expiry').on(table.expiresAt),
  ],
)
