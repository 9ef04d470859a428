import type { OutboxEntry } from '@portcullis/core/mail'
import { sql } from 'drizzle-orm'
import type { Transaction } from '../client/transaction.js'

/**
 * Writes the messages that carry a code into the mail outbox (`portcullis_mail_outbox`, migration 14)
 * inside the code's transaction: due at once, no attempt made yet.
 */
export async function insertCodeOutbox(tx: Transaction, entries: readonly OutboxEntry[]): Promise<void> {
  for (const entry of entries) {
    await tx.execute(sql`insert into portcullis_mail_outbox
      (id, kind, account_id, envelope, created_at, attempts, next_attempt_at, state)
      values (${entry.id}, ${entry.kind}, ${entry.accountId}, ${entry.envelope}, ${entry.createdAt}, 0, ${entry.createdAt}, 'pending')`)
  }
}
