import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  check,
  foreignKey,
  index,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core'
import { instant } from '../columns/columns.js'

// The one account schema: an account row per person, and its sign-in methods as rows of their own: the
// password (`portcullis_passwords`, at most one per account) and each provider identity
// (`portcullis_oauth_links`, in ../oauth-accounts/tables.ts). Sessions, refresh-token families, step-up
// credentials and API keys hang on the account id.

export const accountsTable = pgTable(
  'portcullis_accounts',
  {
    accountId: text('account_id').primaryKey(),
    securityEpoch: bigint('security_epoch', { mode: 'number' }).notNull(),
    status: text('status').$type<'active' | 'disabled'>().notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (table) => [
    check('portcullis_accounts_security_epoch_check', sql`${table.securityEpoch} >= 1`),
    check('portcullis_accounts_status_check', sql`${table.status} in ('active', 'disabled')`),
  ],
)

export const passwordsTable = pgTable(
  'portcullis_passwords',
  {
    accountId: text('account_id').primaryKey(),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
    passwordChangedAt: instant('password_changed_at').notNull(),
  },
  (table) => [
    foreignKey({
      name: 'portcullis_passwords_account_id_fkey',
      columns: [table.accountId],
      foreignColumns: [accountsTable.accountId],
    }),
    unique('portcullis_passwords_username_key').on(table.username),
    // Administration searches: a username prefix is one range of this index, in code-point order.
    index('portcullis_passwords_username_c_idx').on(sql`${table.username} collate "C"`),
  ],
)

/**
 * The email addresses of an account, as `normalizeEmailAddress` returns them. A verified address belongs
 * to one account at most (the partial unique index on `address` where verified, which also serves the
 * sign-in lookup); unverified ones are shared freely. At most one primary per account.
 */
export const emailAddressesTable = pgTable(
  'portcullis_email_addresses',
  {
    accountId: text('account_id').notNull(),
    address: text('address').notNull(),
    verifiedAt: instant('verified_at'),
    isPrimary: boolean('is_primary').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (table) => [
    primaryKey({ name: 'portcullis_email_addresses_pkey', columns: [table.accountId, table.address] }),
    foreignKey({
      name: 'portcullis_email_addresses_account_id_fkey',
      columns: [table.accountId],
      foreignColumns: [accountsTable.accountId],
    }),
    uniqueIndex('portcullis_email_addresses_verified_key')
      .on(table.address)
      .where(sql`${table.verifiedAt} is not null`),
    uniqueIndex('portcullis_email_addresses_primary_key').on(table.accountId).where(sql`${table.isPrimary}`),
    check('portcullis_email_addresses_address_check', sql`octet_length(${table.address}) <= 254`),
    // Administration searches: an address (verified or not) or its prefix, in code-point order.
    index('portcullis_email_addresses_address_c_idx').on(sql`${table.address} collate "C"`, table.accountId),
  ],
)

export const invitesTable = pgTable(
  'portcullis_local_account_invites',
  {
    digest: text('digest').primaryKey(),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    consumedAt: instant('consumed_at'),
    consumedBy: text('consumed_by'),
  },
  (table) => [
    check('portcullis_local_account_invites_expires_at_check', sql`${table.expiresAt} > ${table.createdAt}`),
    index('portcullis_local_account_invites_expires_at_idx').on(table.expiresAt),
  ],
)

export type AccountRow = typeof accountsTable.$inferSelect
export type PasswordRow = typeof passwordsTable.$inferSelect
export type EmailAddressRow = typeof emailAddressesTable.$inferSelect
