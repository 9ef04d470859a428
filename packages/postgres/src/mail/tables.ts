import { sql } from 'drizzle-orm'
import { check, foreignKey, index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { accountsTable } from '../accounts/tables.js'
import { instant } from '../columns/columns.js'

// The transactional mail outbox and the accounts' notification opt-outs. An outbox row is written in the
// transaction of the change that causes it; its message is sealed whole (`envelope`), so the row shows
// only what an operator needs: kind, account, attempts and the last error code. A row that failed for
// good keeps those (state 'failed', envelope dropped) until the maintenance sweep removes it.

export const mailOutboxTable = pgTable(
  'portcullis_mail_outbox',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind').notNull(),
    // No foreign key: a message may concern an account deleted since (or an address with no account).
    accountId: text('account_id'),
    envelope: text('envelope'),
    createdAt: instant('created_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: instant('next_attempt_at').notNull(),
    leaseUntil: instant('lease_until'),
    lastError: text('last_error'),
    state: text('state').$type<'pending' | 'failed'>().notNull().default('pending'),
    failedAt: instant('failed_at'),
  },
  (table) => [
    check('portcullis_mail_outbox_state_check', sql`${table.state} in ('pending', 'failed')`),
    check(
      'portcullis_mail_outbox_envelope_check',
      sql`(${table.state} = 'pending') = (${table.envelope} is not null)`,
    ),
    check(
      'portcullis_mail_outbox_failed_check',
      sql`(${table.state} = 'failed') = (${table.failedAt} is not null)`,
    ),
    index('portcullis_mail_outbox_claim_idx').on(table.state, table.nextAttemptAt),
  ],
)

export const notificationSettingsTable = pgTable(
  'portcullis_notification_settings',
  {
    accountId: text('account_id').primaryKey(),
    optOuts: text('opt_outs').array().notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (table) => [
    foreignKey({
      name: 'portcullis_notification_settings_account_id_fkey',
      columns: [table.accountId],
      foreignColumns: [accountsTable.accountId],
    }).onDelete('cascade'),
  ],
)
