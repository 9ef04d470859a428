import { type EnvelopeLocationCount, emptyTally, tallyEnvelope } from '../protection/inventory.js'
import type { ClaimOutboxRequest, MailOutboxStore, OutboxEntry, OutboxRecord } from './outbox.js'
import {
  duplicateOutboxEntry,
  validateClaimOutbox,
  validateFailOutbox,
  validateOutboxEntries,
  validateOutboxIds,
  validateRescheduleOutbox,
} from './outbox-input.js'

// The outbox in memory, for tests and single-process development. Memory stores that write messages
// with their changes (`MemoryAccountStore`, `MemoryOneTimeCodeStore`) take one in their options and
// write through `prepareWrite`, so a change and its messages land in the same synchronous step.

/** A message that failed for good: kept for operators, without its envelope. */
export interface FailedOutboxRecord {
  readonly id: string
  readonly kind: OutboxEntry['kind']
  readonly accountId: string | null
  readonly createdAt: Date
  readonly attempts: number
  readonly lastError: string
  readonly failedAt: Date
}

interface Row {
  readonly entry: OutboxEntry
  attempts: number
  nextAttemptAt: Date
  leaseUntil: Date | null
  lastError: string | null
  failedAt: Date | null
}

function snapshot(row: Row): OutboxRecord {
  return Object.freeze({
    id: row.entry.id,
    kind: row.entry.kind,
    accountId: row.entry.accountId,
    envelope: row.entry.envelope,
    createdAt: new Date(row.entry.createdAt.getTime()),
    attempts: row.attempts,
    nextAttemptAt: new Date(row.nextAttemptAt.getTime()),
    lastError: row.lastError,
  })
}

function due(a: Row, b: Row): number {
  return (
    a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() ||
    a.entry.createdAt.getTime() - b.entry.createdAt.getTime() ||
    (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0)
  )
}

/**
 * `MailOutboxStore` in memory. A claim leases each row it hands out (its `nextAttemptAt` moves to the
 * end of the lease), so a drain that dies without completing releases the row when the lease ends.
 */
export class MemoryMailOutbox implements MailOutboxStore {
  readonly #rows = new Map<string, Row>()
  readonly #failed = new Map<string, FailedOutboxRecord>()

  /**
   * Validates `entries` (a change request's `outbox`) and checks that no id is stored already; returns
   * the function that writes them. A memory store calls this before its change and the returned
   * function right after it, with no `await` between, so both or neither happen.
   */
  prepareWrite(entries: unknown): () => void {
    const valid = validateOutboxEntries(entries)
    for (const entry of valid) {
      if (this.#rows.has(entry.id) || this.#failed.has(entry.id)) throw duplicateOutboxEntry()
    }
    return () => {
      for (const entry of valid) {
        this.#rows.set(entry.id, {
          entry,
          attempts: 0,
          nextAttemptAt: new Date(entry.createdAt.getTime()),
          leaseUntil: null,
          lastError: null,
          failedAt: null,
        })
      }
    }
  }

  async enqueue(entries: readonly OutboxEntry[]): Promise<void> {
    this.prepareWrite(entries)()
  }

  async claim(request: ClaimOutboxRequest): Promise<readonly OutboxRecord[]> {
    const { now, limit, leaseSeconds } = validateClaimOutbox(request)
    const ready = [...this.#rows.values()]
      .filter((row) => row.nextAttemptAt.getTime() <= now.getTime())
      .sort(due)
      .slice(0, limit)
    const leaseUntil = new Date(now.getTime() + leaseSeconds * 1000)
    for (const row of ready) {
      row.leaseUntil = leaseUntil
      row.nextAttemptAt = leaseUntil
    }
    return Object.freeze(ready.map(snapshot))
  }

  async complete(ids: readonly string[]): Promise<void> {
    for (const id of validateOutboxIds(ids)) this.#rows.delete(id)
  }

  async reschedule(request: Parameters<MailOutboxStore['reschedule']>[0]): Promise<void> {
    const { id, nextAttemptAt, error } = validateRescheduleOutbox(request)
    const row = this.#rows.get(id)
    if (row === undefined) return
    row.attempts += 1
    row.nextAttemptAt = nextAttemptAt
    row.leaseUntil = null
    row.lastError = error
  }

  async fail(request: Parameters<MailOutboxStore['fail']>[0]): Promise<void> {
    const { id, error, now } = validateFailOutbox(request)
    const row = this.#rows.get(id)
    if (row === undefined) return
    this.#rows.delete(id)
    this.#failed.set(
      id,
      Object.freeze({
        id,
        kind: row.entry.kind,
        accountId: row.entry.accountId,
        createdAt: new Date(row.entry.createdAt.getTime()),
        attempts: row.attempts + 1,
        lastError: error,
        failedAt: new Date(now.getTime()),
      }),
    )
  }

  /**
   * The sealed messages waiting to be sent, leased ones included (`MemoryEnvelopeInventory`): each is
   * opened when the drain sends it, however late. A message that failed for good keeps no envelope.
   */
  countEnvelopes(_now: Date): readonly EnvelopeLocationCount[] {
    const tally = emptyTally()
    for (const row of this.#rows.values()) tallyEnvelope(tally, row.entry.envelope)
    return [
      {
        location: 'mail-outbox.envelope',
        holding: 'mail-outbox',
        ...tally,
        method: 'in-memory outbox, every message waiting to be sent (leased ones included)',
      },
    ]
  }

  /** Every message waiting (leased ones included), in the order a claim at the end of time would take them. */
  pending(): readonly OutboxRecord[] {
    return Object.freeze([...this.#rows.values()].sort(due).map(snapshot))
  }

  /** Messages that failed for good, oldest failure first. */
  failed(): readonly FailedOutboxRecord[] {
    return Object.freeze(
      [...this.#failed.values()].sort((a, b) => a.failedAt.getTime() - b.failedAt.getTime()),
    )
  }

  /** Deletes failed rows that failed before `before`, at most `limit`; returns how many. */
  sweepFailed(before: Date, limit = 1000): number {
    let removed = 0
    for (const [id, failed] of this.#failed) {
      if (removed >= limit) break
      if (failed.failedAt.getTime() < before.getTime()) {
        this.#failed.delete(id)
        removed += 1
      }
    }
    return removed
  }
}
