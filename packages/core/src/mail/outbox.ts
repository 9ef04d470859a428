import type { MailMessageKind } from './messages.js'

// The transactional mail outbox. A flow writes a message in the same transaction as the change that
// causes it (every `AccountStore` change request and `OneTimeCodeStore.issue` take `outbox` entries);
// a drain sends it after commit, retries with backoff, and loses nothing while the mail server is
// down. The message itself (recipient, code, links) is sealed with the protector: the row carries only
// what an operator needs to see.

/** A message as a flow writes it. */
export interface OutboxEntry {
  /** A UUID; also the message's idempotency key, so a resend after a lost reply keeps its Message-ID. */
  readonly id: string
  readonly kind: MailMessageKind
  /** The account it concerns, or null (a message to an address with no account). */
  readonly accountId: string | null
  /** The whole `MailMessage` as JSON, sealed with the protector (associated data: purpose and `id`). */
  readonly envelope: string
  readonly createdAt: Date
}

/** A message waiting in the outbox. */
export interface OutboxRecord extends OutboxEntry {
  /** Failed sends so far. */
  readonly attempts: number
  /** Not claimed before this instant. */
  readonly nextAttemptAt: Date
  /** The `MailError` code of the last failure, or null; never a message body or a secret. */
  readonly lastError: string | null
}

export interface ClaimOutboxRequest {
  readonly now: Date
  readonly limit: number
  /** Claimed rows are hidden from other drains for this long (a drain that dies releases them so). */
  readonly leaseSeconds: number
}

export interface RescheduleOutboxRequest {
  readonly id: string
  readonly nextAttemptAt: Date
  readonly error: string
}

export interface FailOutboxRequest {
  readonly id: string
  readonly error: string
  readonly now: Date
}

/**
 * The durable outbox. `claim` hands each due row to one drain at a time (several instances drain one
 * outbox: no message is sent twice by two drains at once), oldest first. Memory: `MemoryMailOutbox`;
 * Postgres: `PostgresMailOutbox`; conformance: `assertMailOutboxConformance`.
 */
export interface MailOutboxStore {
  /** Writes entries on their own (for messages no stored change causes). */
  enqueue(entries: readonly OutboxEntry[]): Promise<void>
  claim(request: ClaimOutboxRequest): Promise<readonly OutboxRecord[]>
  /** Sent: the rows are removed (one write for the lot; up to `MAX_OUTBOX_CLAIM` ids, unknown ids are skipped). */
  complete(ids: readonly string[]): Promise<void>
  /** A retryable failure: `attempts` + 1, due again at `nextAttemptAt`. */
  reschedule(request: RescheduleOutboxRequest): Promise<void>
  /** A permanent failure: the row leaves the queue and is kept, without its envelope, for operators. */
  fail(request: FailOutboxRequest): Promise<void>
}
