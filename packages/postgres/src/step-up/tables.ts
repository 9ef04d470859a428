import { sql } from 'drizzle-orm'
import { bigint, check, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

// The schema's one description: migration 0002 was written by hand before drizzle-kit generated
// migrations, and a test checks that it creates exactly this table, its constraints and index.

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const stepUpTable = pgTable(
  'portcullis_step_up_credentials',
  {
    digest: text('digest').primaryKey(),
    accountId: text('account_id').notNull(),
    purpose: text('purpose').notNull(),
    securityEpoch: bigint('security_epoch', { mode: 'number' }).notNull(),
    sessionDigest: text('session_digest').notNull(),
    issuedAt: instant('issued_at').notNull(),
    authenticatedAt: instant('authenticated_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
  },
  (table) => [
    check('portcullis_step_up_credentials_security_epoch_check', sql`${table.securityEpoch} >= 0`),
    check('portcullis_step_up_credentials_check', sql`${table.expiresAt} > ${table.issuedAt}`),
    index('portcullis_step_up_credentials_expiry').on(table.expiresAt),
    // An account's credentials, deleted with it.
    index('portcullis_step_up_credentials_account_idx').on(table.accountId),
  ],
)
