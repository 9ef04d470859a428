import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  check,
  foreignKey,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  unique,
} from 'drizzle-orm/pg-core'
import { accountsTable } from '../accounts/tables.js'

// Provider identities (sign-in methods of an account, see ../accounts/tables.ts), the encrypted token
// vault and staged revocation retries. Migration 0001 created them by hand; later changes are generated.

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const linksTable = pgTable(
  'portcullis_oauth_links',
  {
    providerAccountId: text('provider_account_id').primaryKey(),
    accountId: text('account_id').notNull(),
    provider: text('provider').notNull(),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    grantScopes: text('grant_scopes').array().notNull(),
    grantExpiresAt: instant('grant_expires_at'),
    /** What the provider said at the last sign-in or link: informational, never a key or a link. */
    email: text('email'),
    emailVerified: boolean('email_verified'),
    linkedAt: instant('linked_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (table) => [
    foreignKey({
      name: 'portcullis_oauth_links_account_id_fkey',
      columns: [table.accountId],
      foreignColumns: [accountsTable.accountId],
    }),
    unique('portcullis_oauth_links_identity_key').on(table.provider, table.issuer, table.subject),
    unique('portcullis_oauth_links_account_provider_key').on(table.accountId, table.provider),
  ],
)

export const vaultTable = pgTable(
  'portcullis_oauth_token_vault',
  {
    providerAccountId: text('provider_account_id').primaryKey(),
    provider: text('provider').notNull(),
    clientId: text('client_id').notNull(),
    version: bigint('version', { mode: 'number' }).notNull(),
    envelope: text('envelope'),
    scopes: text('scopes').array(),
    expiresAt: instant('expires_at'),
  },
  (table) => [
    check('portcullis_oauth_token_vault_version_check', sql`${table.version} >= 1`),
    check(
      'portcullis_oauth_token_vault_retained',
      sql`(${table.envelope} is null) = (${table.scopes} is null) and (${table.envelope} is null) = (${table.expiresAt} is null)`,
    ),
  ],
)

export const retriesTable = pgTable(
  'portcullis_oauth_revocation_retries',
  {
    retryId: text('retry_id').primaryKey(),
    provider: text('provider').notNull(),
    clientId: text('client_id').notNull(),
    providerAccountId: text('provider_account_id').notNull(),
    failedTokenTypes: text('failed_token_types').array().notNull(),
    occurredAt: instant('occurred_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    claim: text('claim'),
    claimedUntil: instant('claimed_until'),
    envelope: text('envelope').notNull(),
  },
  (table) => [
    check('portcullis_oauth_revocation_retries_attempts_check', sql`${table.attempts} >= 0`),
    index('portcullis_oauth_revocation_retries_due').on(
      table.provider,
      table.clientId,
      table.occurredAt,
      table.retryId,
    ),
  ],
)

export type LinkRow = typeof linksTable.$inferSelect
