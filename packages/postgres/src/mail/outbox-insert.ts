import { duplicateOutboxEntry, type OutboxEntry } from '@portcullis/core/mail'
import { sqlStateOf } from '../client/database-error.js'
import type { Transaction } from '../client/transaction.js'
import { mailOutboxTable } from './tables.js'

/**
 * Writes already validated outbox entries (`validateOutboxEntries`) inside the caller's transaction, so
 * they commit or roll back with its change. Call it once the change is known to happen. An id the
 * outbox holds already throws `mail.duplicate_outbox_entry`, which rolls the whole transaction back.
 */
export async function insertOutboxEntries(tx: Transaction, entries: readonly OutboxEntry[]): Promise<void> {
  if (entries.length === 0) return
  try {
    await tx.insert(mailOutboxTable).values(
      entries.map((entry) => ({
        id: entry.id,
        kind: entry.kind,
        accountId: entry.accountId,
        envelope: entry.envelope,
        createdAt: entry.createdAt,
        nextAttemptAt: entry.createdAt,
      })),
    )
  } catch (error) {
    if (sqlStateOf(error) === '23505') throw duplicateOutboxEntry()
    throw error
  }
}

/** Writes `entries` (see `insertOutboxEntries`) and answers `result`: call it where the change happened. */
export async function withOutbox<T>(tx: Transaction, entries: readonly OutboxEntry[], result: T): Promise<T> {
  await insertOutboxEntries(tx, entries)
  return result
}
