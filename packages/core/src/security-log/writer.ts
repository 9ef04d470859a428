import { isPortcullisError } from '../errors/portcullis-error.js'
import type { SecurityEventSink } from '../local-accounts/security-events.js'
import { type LoggableEvent, SecurityLogEntries, type SecurityLogEntryOptions } from './entries.js'
import type { SecurityLogEntry } from './entry.js'
import { SecurityLogError, SecurityLogErrorCodes } from './errors.js'
import type { SecurityLog } from './port.js'
import { SECURITY_LOG_BATCH_MAX } from './requests.js'

/** What the writer tells the application (`onReport`): never an entry's content, only counts and codes. */
export type SecurityLogWriterReport =
  /** The queue was full: `dropped` events were not kept (`total` since start); a `security_log.dropped` entry says so. */
  | { readonly kind: 'dropped'; readonly dropped: number; readonly total: number }
  /** A batch failed to write (`code`: the error's code, or `unknown`); it is retried after `retryInMs`. */
  | {
      readonly kind: 'write_failed'
      readonly code: string
      readonly attempt: number
      readonly queued: number
      readonly retryInMs: number
    }
  /** Writing works again after `attempts` failures. */
  | { readonly kind: 'recovered'; readonly attempts: number }
  /** The log refused entries as malformed (`count`); they are not retried. */
  | { readonly kind: 'rejected'; readonly count: number; readonly code: string }
  /** `close` gave up with `unwritten` entries still queued. */
  | { readonly kind: 'unwritten'; readonly unwritten: number }

export interface SecurityLogWriterStats {
  /** Events accepted into the queue. */
  readonly accepted: number
  /** Entries the log has stored. */
  readonly written: number
  /** Entries waiting. */
  readonly queued: number
  /** Events not kept because the queue was full (or the writer closed). */
  readonly dropped: number
  /** Events or entries refused as malformed. */
  readonly rejected: number
  /** Batches written. */
  readonly batches: number
  /** Failed write attempts (each retried). */
  readonly failedWrites: number
  /** The code of the last failed write, or null. */
  readonly lastErrorCode: string | null
}

export interface SecurityLogWriterOptions extends SecurityLogEntryOptions {
  readonly log: SecurityLog
  /** Entries held at most while the log is slow or down, 1-1000000. Default 10000. */
  readonly maxQueue?: number
  /** Entries per `append`, 1-1000. Default 200. */
  readonly batchSize?: number
  /** How long a partial batch waits for more, 0-10000 ms. Default 20. */
  readonly flushDelayMs?: number
  /** First retry delay after a failed write, doubling up to `maxRetryDelayMs`. Default 100 and 10000. */
  readonly retryDelayMs?: number
  readonly maxRetryDelayMs?: number
  /** Milliseconds since the epoch (the time of a `security_log.dropped` entry). Default `Date.now`. */
  readonly clock?: () => number
  readonly onReport?: (report: SecurityLogWriterReport) => void
}

function bounded(
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
  name: string,
): number {
  const chosen = value ?? fallback
  if (!Number.isSafeInteger(chosen) || chosen < min || chosen > max) {
    throw new SecurityLogError(
      SecurityLogErrorCodes.invalidConfig,
      `${name} must be an integer ${min}-${max}`,
    )
  }
  return chosen
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    ;(timer as { unref?: () => void }).unref?.()
  })

/**
 * The application's security-event sink that keeps events in a `SecurityLog`. `sink` only builds the
 * entry and queues it: the request never waits on the database. Batches are written in the background;
 * a failed batch is retried with backoff, with the same entry ids (the log keeps a retried entry once).
 * The queue is bounded: events beyond it are counted (`stats().dropped`), reported (`onReport`) and
 * recorded as one `security_log.dropped` entry when writing catches up, never lost without a trace.
 */
export class SecurityLogWriter {
  readonly #log: SecurityLog
  readonly #entries: SecurityLogEntries
  readonly #maxQueue: number
  readonly #batchSize: number
  readonly #delayMs: number
  readonly #retryMs: number
  readonly #maxRetryMs: number
  readonly #clock: () => number
  readonly #onReport: ((report: SecurityLogWriterReport) => void) | undefined
  #queue: SecurityLogEntry[] = []
  #timer: ReturnType<typeof setTimeout> | undefined
  #draining: Promise<void> | undefined
  #closed = false
  #giveUp = false
  /** Dropped events not yet recorded by a `security_log.dropped` entry, and when the first was. */
  #unrecordedDrops = 0
  #firstDropAt = 0
  #stats = { accepted: 0, written: 0, dropped: 0, rejected: 0, batches: 0, failedWrites: 0 }
  #lastErrorCode: string | null = null
  #idle: (() => void)[] = []

  constructor(options: SecurityLogWriterOptions) {
    if (typeof options?.log?.append !== 'function') {
      throw new SecurityLogError(SecurityLogErrorCodes.invalidConfig, 'SecurityLogWriter needs a SecurityLog')
    }
    this.#log = options.log
    this.#entries = new SecurityLogEntries(options)
    this.#maxQueue = bounded(options.maxQueue, 10_000, 1, 1_000_000, 'maxQueue')
    this.#batchSize = bounded(options.batchSize, 200, 1, SECURITY_LOG_BATCH_MAX, 'batchSize')
    this.#delayMs = bounded(options.flushDelayMs, 20, 0, 10_000, 'flushDelayMs')
    this.#retryMs = bounded(options.retryDelayMs, 100, 1, 60_000, 'retryDelayMs')
    this.#maxRetryMs = bounded(options.maxRetryDelayMs, 10_000, this.#retryMs, 600_000, 'maxRetryDelayMs')
    this.#clock = options.clock ?? Date.now
    this.#onReport = options.onReport
  }

  /** The `SecurityEventSink` to configure (`events` of local accounts, the OAuth routes, TOTP, passkeys). */
  readonly sink: SecurityEventSink = (event) => this.record(event)

  /** Queues `event`; returns at once and never throws (what goes wrong is counted and reported). */
  record(event: LoggableEvent): void {
    if (this.#closed || this.#queue.length >= this.#maxQueue) {
      this.#drop()
      return
    }
    let entry: SecurityLogEntry
    try {
      entry = this.#entries.entryOf(event)
    } catch (error) {
      this.#stats.rejected += 1
      this.#report({ kind: 'rejected', count: 1, code: codeOf(error) })
      return
    }
    this.#queue.push(entry)
    this.#stats.accepted += 1
    this.#schedule()
  }

  /**
   * The entry for `event`, to write in the same transaction as the change it records
   * (`PostgresSecurityLog.appendIn(tx, entries)`), instead of queueing it.
   */
  entryFor(event: LoggableEvent): SecurityLogEntry {
    return this.#entries.entryOf(event)
  }

  /** The keyed hash the log stores for `address` (with `clientAddresses: { hashKey }`), else null. */
  hashAddress(address: string): string | null {
    return this.#entries.hashAddress(address)
  }

  stats(): SecurityLogWriterStats {
    return { ...this.#stats, queued: this.#queue.length, lastErrorCode: this.#lastErrorCode }
  }

  /** Writes what is queued now; resolves true once the queue is empty, false after `timeoutMs`. */
  async flush(timeoutMs = 10_000): Promise<boolean> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    if (this.#isIdle()) return true
    this.#startDrain()
    let timer: ReturnType<typeof setTimeout> | undefined
    const idle = new Promise<boolean>((resolve) => this.#idle.push(() => resolve(true)))
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs)
    })
    try {
      return await Promise.race([idle, late])
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * Stops accepting events (later ones count as dropped), writes what is queued for up to `timeoutMs`,
   * and reports what could not be written. Answers the final stats.
   */
  async close(timeoutMs = 5_000): Promise<SecurityLogWriterStats> {
    this.#closed = true
    const done = await this.flush(timeoutMs)
    if (!done) {
      this.#giveUp = true
      this.#report({ kind: 'unwritten', unwritten: this.#queue.length })
    }
    return this.stats()
  }

  #isIdle(): boolean {
    return (
      this.#queue.length === 0 &&
      this.#unrecordedDrops === 0 &&
      this.#marker === undefined &&
      this.#draining === undefined
    )
  }

  #drop(): void {
    this.#stats.dropped += 1
    if (this.#unrecordedDrops === 0) this.#firstDropAt = this.#now()
    this.#unrecordedDrops += 1
    this.#report({ kind: 'dropped', dropped: 1, total: this.#stats.dropped })
    this.#schedule()
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#draining !== undefined) return
    const delay = this.#queue.length >= this.#batchSize ? 0 : this.#delayMs
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#startDrain()
    }, delay)
    ;(this.#timer as { unref?: () => void }).unref?.()
  }

  #startDrain(): void {
    if (this.#draining !== undefined) return
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined
      if (this.#isIdle()) for (const resolve of this.#idle.splice(0)) resolve()
      else if (!this.#giveUp) this.#schedule()
    })
  }

  async #drain(): Promise<void> {
    let failures = 0
    while (
      !this.#giveUp &&
      (this.#queue.length > 0 || this.#unrecordedDrops > 0 || this.#marker !== undefined)
    ) {
      const marker = this.#marker ?? this.#takeDrops()
      const batch = this.#queue.slice(0, marker === undefined ? this.#batchSize : this.#batchSize - 1)
      const sent = marker === undefined ? batch : [marker, ...batch]
      try {
        await this.#log.append(sent)
      } catch (error) {
        const code = codeOf(error)
        if (isPortcullisError(error) && error.errorClass === 'invalid-input') {
          // Entries are checked when queued, so this is a log that disagrees: retrying cannot help.
          this.#queue.splice(0, batch.length)
          this.#marker = undefined
          this.#stats.rejected += sent.length
          this.#report({ kind: 'rejected', count: sent.length, code })
          continue
        }
        failures += 1
        this.#stats.failedWrites += 1
        this.#lastErrorCode = code
        const retryInMs = Math.min(this.#maxRetryMs, this.#retryMs * 2 ** Math.min(failures - 1, 20))
        this.#report({ kind: 'write_failed', code, attempt: failures, queued: this.#queue.length, retryInMs })
        await sleep(retryInMs)
        continue
      }
      this.#queue.splice(0, batch.length)
      this.#marker = undefined
      this.#stats.written += sent.length
      this.#stats.batches += 1
      if (failures > 0) {
        this.#report({ kind: 'recovered', attempts: failures })
        failures = 0
      }
    }
  }

  /**
   * The entry recording the drops counted so far; it is kept (same id) until written, and drops after
   * it go to the next one, so a retried batch never counts a drop twice.
   */
  #marker: SecurityLogEntry | undefined

  #takeDrops(): SecurityLogEntry | undefined {
    if (this.#unrecordedDrops === 0) return undefined
    const entry = this.#entries.entryOf({
      type: 'security_log.dropped',
      at: new Date(this.#now()),
      dropped: this.#unrecordedDrops,
      since: new Date(this.#firstDropAt).toISOString(),
    })
    this.#unrecordedDrops = 0
    this.#marker = entry
    return entry
  }

  #now(): number {
    try {
      const now = this.#clock()
      return Number.isFinite(now) ? now : Date.now()
    } catch {
      return Date.now()
    }
  }

  #report(report: SecurityLogWriterReport): void {
    try {
      this.#onReport?.(report)
    } catch {
      // A failing report handler must not stop the writer.
    }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `SecurityLogWriter { queued: ${this.#queue.length} }`
  }
}

function codeOf(error: unknown): string {
  return isPortcullisError(error) ? error.code : 'unknown'
}
