import type { SecurityLogDetail } from '@portcullis/core/security-log'
import { sql } from 'drizzle-orm'
import { check, index, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { instant } from '../columns/columns.js'

// The security log: one row per event, identifiers and reason codes only (never a secret). The key
// (occurred_at, id) makes a retried batch store each entry once and orders the retention sweep; the two
// indexes serve the two reads, each one ordered range scan whatever the table's size.

export const securityLogTable = pgTable(
  'portcullis_security_log',
  {
    occurredAt: instant('occurred_at').notNull(),
    id: text('id').notNull(),
    type: text('type').notNull(),
    accountId: text('account_id'),
    actorId: text('actor_id'),
    reason: text('reason'),
    sessionHandle: text('session_handle'),
    clientAddress: text('client_address'),
    clientAddressHash: text('client_address_hash'),
    browser: text('browser'),
    os: text('os'),
    platform: text('platform'),
    details: jsonb('details').$type<Record<string, SecurityLogDetail>>().notNull(),
  },
  (table) => [
    primaryKey({ name: 'portcullis_security_log_pkey', columns: [table.occurredAt, table.id] }),
    check('portcullis_security_log_details_check', sql`jsonb_typeof(${table.details}) = 'object'`),
    // Recent activity of one account, newest first, by cursor.
    index('portcullis_security_log_account_idx').on(table.accountId, table.occurredAt, table.id),
    // One type in a time window, for operators.
    index('portcullis_security_log_type_idx').on(table.type, table.occurredAt, table.id),
  ],
)

export type SecurityLogRow = typeof securityLogTable.$inferSelect
