import { readOptions } from '../errors/options.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import type { OAuthTransactionProtector } from '../protection/protector.js'
import {
  backoffWithDefaults,
  MAIL_OUTBOX_DRAIN_OPTIONS,
  type MailOutboxBackoff,
  type MailOutboxDrainEvent,
  type MailOutboxDrainOptions,
  retryDelayMs,
} from './drain-options.js'
import { MailError } from './errors.js'
import type { Mailer } from './mailer.js'
import type { MailOutboxStore, OutboxRecord } from './outbox.js'
import { openOutboxMessage } from './outbox-seal.js'

// Sends what the outbox holds, after the changes that wrote it committed. One round (`drainOnce`)
// claims a batch (leased, so other drains skip it), opens and sends each message with bounded
// concurrency, reschedules a message that failed (a retryable `MailError`: exponential backoff with
// jitter) or fails it (a permanent `MailError`, too many attempts, too old, or an envelope that does not
// open), and completes the sent ones in one write at the end of the round. The loop (`start`) runs rounds back to back while there is work and polls otherwise; `wake`
// starts a round at once (call it after committing a change that wrote mail). Nothing the drain emits
// carries a recipient, a code, a link or a body.

/** What one round did. */
export interface MailOutboxDrainReport {
  readonly claimed: number
  readonly sent: number
  readonly rescheduled: number
  readonly failed: number
  /** Rows whose outcome could not be written (the store failed); their lease hands them out again. */
  readonly unrecorded: number
}

type Outcome = 'sent' | 'rescheduled' | 'failed' | 'unrecorded'

function errorCodeOf(error: unknown): string {
  if (isPortcullisError(error) && /^[a-z0-9][a-z0-9._:-]{0,99}$/.test(error.code)) return error.code
  return 'unknown'
}

/** The outbox drain; see the module comment. */
export class MailOutboxDrain {
  readonly #store: MailOutboxStore
  readonly #mailer: Mailer
  readonly #protector: OAuthTransactionProtector
  readonly #clock: () => Date
  readonly #batchSize: number
  readonly #concurrency: number
  readonly #leaseSeconds: number
  readonly #backoff: Required<MailOutboxBackoff>
  readonly #maxAttempts: number
  readonly #maxAgeMs: number
  readonly #pollIntervalMs: number
  readonly #random: () => number
  readonly #onEvent: ((event: MailOutboxDrainEvent) => void) | undefined
  #running = false
  #timer: ReturnType<typeof setTimeout> | undefined
  #round: Promise<void> | undefined
  #woken = false

  constructor(options: MailOutboxDrainOptions) {
    readOptions(options, 'MailOutboxDrain', MAIL_OUTBOX_DRAIN_OPTIONS)
    this.#store = options.store
    this.#mailer = options.mailer
    this.#protector = options.protector
    this.#clock = options.clock ?? (() => new Date())
    this.#batchSize = options.batchSize ?? 50
    this.#concurrency = options.concurrency ?? 8
    this.#leaseSeconds = options.leaseSeconds ?? 120
    this.#backoff = backoffWithDefaults(options.backoff)
    this.#maxAttempts = options.maxAttempts ?? 25
    this.#maxAgeMs = options.maxAgeMs ?? 3 * 86_400_000
    this.#pollIntervalMs = options.pollIntervalMs ?? 5000
    this.#random = options.random ?? Math.random
    this.#onEvent = options.onEvent
  }

  /** One round: claims up to `batchSize` due messages and settles each. A failing claim throws. */
  async drainOnce(): Promise<MailOutboxDrainReport> {
    const rows = await this.#store.claim({
      now: this.#clock(),
      limit: this.#batchSize,
      leaseSeconds: this.#leaseSeconds,
    })
    const counts: Record<Outcome, number> = { sent: 0, rescheduled: 0, failed: 0, unrecorded: 0 }
    const sent: OutboxRecord[] = []
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < rows.length) {
        const row = rows[next++] as OutboxRecord
        const outcome = await this.#settle(row)
        if (outcome === 'sent') sent.push(row)
        else counts[outcome] += 1
      }
    }
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, rows.length) }, worker))
    // One write removes every message the round sent; if it fails, their lease hands them out again
    // (a resend keeps its Message-ID: the row id is the idempotency key).
    if (sent.length > 0) {
      const ids = sent.map((row) => row.id)
      const recorded = await this.#write('complete', () => this.#store.complete(ids))
      counts[recorded ? 'sent' : 'unrecorded'] += sent.length
    }
    return { claimed: rows.length, ...counts }
  }

  /** Starts the loop (idempotent). */
  start(): void {
    if (this.#running) return
    this.#running = true
    this.#schedule(0)
  }

  /** Runs a round now (or right after the one in progress), instead of at the next poll. */
  wake(): void {
    if (!this.#running) return
    if (this.#round !== undefined) {
      this.#woken = true
      return
    }
    this.#schedule(0)
  }

  /** Stops the loop; resolves once the round in progress (if any) has settled its messages. */
  async stop(): Promise<void> {
    this.#running = false
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    await this.#round
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#round = this.#loopRound().finally(() => {
        this.#round = undefined
      })
    }, delayMs)
    this.#timer.unref?.()
  }

  async #loopRound(): Promise<void> {
    this.#woken = false
    let full = false
    try {
      const report = await this.drainOnce()
      full = report.claimed === this.#batchSize
    } catch (error) {
      this.#emit({ type: 'mail.outbox_unavailable', operation: 'claim', code: errorCodeOf(error) })
    }
    if (!this.#running) return
    // More may be due at once: a full batch, or a wake during the round.
    this.#schedule(full || this.#woken ? 0 : this.#pollIntervalMs)
  }

  async #settle(row: OutboxRecord): Promise<Outcome> {
    const attempts = row.attempts + 1
    const now = this.#clock()
    if (now.getTime() - row.createdAt.getTime() > this.#maxAgeMs)
      return this.#fail(row, 'mail.expired', attempts)
    let message: Awaited<ReturnType<typeof openOutboxMessage>>
    try {
      message = await openOutboxMessage(this.#protector, row)
    } catch {
      return this.#fail(row, 'protection.envelope_rejected', attempts)
    }
    try {
      await this.#mailer.send(message, { idempotencyKey: row.id })
    } catch (error) {
      const code = errorCodeOf(error)
      if (error instanceof MailError && !error.retryable) return this.#fail(row, code, attempts)
      if (attempts >= this.#maxAttempts) return this.#fail(row, 'mail.attempts_exhausted', attempts)
      const nextAttemptAt = new Date(
        this.#clock().getTime() + retryDelayMs(this.#backoff, attempts, this.#random),
      )
      const error_ = error instanceof MailError ? code : 'mail.send_error'
      if (
        !(await this.#write('reschedule', () =>
          this.#store.reschedule({ id: row.id, nextAttemptAt, error: error_ }),
        ))
      )
        return 'unrecorded'
      this.#emit({
        type: 'mail.retry_scheduled',
        id: row.id,
        kind: row.kind,
        attempts,
        error: error_,
        nextAttemptAt,
      })
      return 'rescheduled'
    }
    this.#emit({ type: 'mail.sent', id: row.id, kind: row.kind, attempts })
    return 'sent'
  }

  async #fail(row: OutboxRecord, error: string, attempts: number): Promise<Outcome> {
    if (!(await this.#write('fail', () => this.#store.fail({ id: row.id, error, now: this.#clock() })))) {
      return 'unrecorded'
    }
    this.#emit({ type: 'mail.failed', id: row.id, kind: row.kind, attempts, error })
    return 'failed'
  }

  async #write(operation: string, write: () => Promise<void>): Promise<boolean> {
    try {
      await write()
      return true
    } catch (error) {
      this.#emit({ type: 'mail.outbox_unavailable', operation, code: errorCodeOf(error) })
      return false
    }
  }

  #emit(event: MailOutboxDrainEvent): void {
    try {
      this.#onEvent?.(event)
    } catch {
      // A listener never stops the drain.
    }
  }
}
