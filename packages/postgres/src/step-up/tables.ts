import { bigint, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

// Drizzle view of the table created by migration 0002 (the SQL there is authoritative).

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const stepUpTable = pgTable('portcullis_step_up_credentials', {
  digest: text('digest').primaryKey(),
  accountId: text('account_id').notNull(),
  purpose: text('purpose').notNull(),
  securityEpoch: bigint('security_epoch', { mode: 'number' }).notNull(),
  sessionDigest: text('session_digest').notNull(),
  issuedAt: instant('issued_at').notNull(),
  authenticatedAt: instant('authenticated_at').notNull(),
  expiresAt: instant('expires_at').notNull(),
})
