import { bigint, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

// Drizzle views of the tables created by migration 0001 (the SQL there is authoritative).

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const accountsTable = pgTable('portcullis_accounts', {
  accountId: text('account_id').primaryKey(),
  otherLoginMethods: integer('other_login_methods').notNull(),
  providerLinks: integer('provider_links').notNull().default(0),
  createdAt: instant('created_at').notNull().defaultNow(),
})

export const linksTable = pgTable('portcullis_oauth_links', {
  providerAccountId: text('provider_account_id').primaryKey(),
  accountId: text('account_id').notNull(),
  provider: text('provider').notNull(),
  issuer: text('issuer').notNull(),
  subject: text('subject').notNull(),
  grantScopes: text('grant_scopes').array().notNull(),
  grantExpiresAt: instant('grant_expires_at'),
  linkedAt: instant('linked_at').notNull(),
  updatedAt: instant('updated_at').notNull(),
})

export const vaultTable = pgTable('portcullis_oauth_token_vault', {
  providerAccountId: text('provider_account_id').primaryKey(),
  provider: text('provider').notNull(),
  clientId: text('client_id').notNull(),
  version: bigint('version', { mode: 'number' }).notNull(),
  envelope: text('envelope'),
  scopes: text('scopes').array(),
  expiresAt: instant('expires_at'),
})

export const retriesTable = pgTable('portcullis_oauth_revocation_retries', {
  retryId: text('retry_id').primaryKey(),
  provider: text('provider').notNull(),
  clientId: text('client_id').notNull(),
  providerAccountId: text('provider_account_id').notNull(),
  failedTokenTypes: text('failed_token_types').array().notNull(),
  occurredAt: instant('occurred_at').notNull(),
  attempts: integer('attempts').notNull(),
  claim: text('claim'),
  claimedUntil: instant('claimed_until'),
  envelope: text('envelope').notNull(),
})

export type LinkRow = typeof linksTable.$inferSelect
