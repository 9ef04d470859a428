import { integerBetween, numberBetween, type OptionsShape } from '../errors/options.js'
import type { OAuthTransactionProtector } from '../protection/protector.js'
import type { Mailer } from './mailer.js'
import type { MailMessageKind } from './messages.js'
import type { MailOutboxStore } from './outbox.js'
import { MAX_OUTBOX_CLAIM, MAX_OUTBOX_LEASE_SECONDS } from './outbox-input.js'

// The options of `MailOutboxDrain`, their defaults, its events and the retry delay.

/** Exponential backoff with jitter, capped: attempt n waits `min(maxMs, initialMs * factor^(n-1))`, less up to `jitter` of it. */
export interface MailOutboxBackoff {
  /** Delay after the first failure. Default 1 000 ms. */
  readonly initialMs?: number
  /** Multiplier per further failure. Default 2. */
  readonly factor?: number
  /** Upper bound of a delay. Default 15 minutes. */
  readonly maxMs?: number
  /** Fraction of a delay drawn at random and taken off (0: none, 1: "full jitter"). Default 0.5. */
  readonly jitter?: number
}

/** What the drain tells the application; ids, kinds and error codes only, never a recipient, a code or a link. */
export type MailOutboxDrainEvent =
  | {
      readonly type: 'mail.sent'
      readonly id: string
      readonly kind: MailMessageKind
      readonly attempts: number
    }
  | {
      readonly type: 'mail.retry_scheduled'
      readonly id: string
      readonly kind: MailMessageKind
      /** Failed attempts so far, this one included. */
      readonly attempts: number
      readonly error: string
      readonly nextAttemptAt: Date
    }
  | {
      readonly type: 'mail.failed'
      readonly id: string
      readonly kind: MailMessageKind
      readonly attempts: number
      /** A `MailError` code, `mail.expired`, `mail.attempts_exhausted` or `protection.envelope_rejected`. */
      readonly error: string
    }
  /** The store could not be reached or refused a write (claim, complete, reschedule or fail); `code` is its error code. */
  | { readonly type: 'mail.outbox_unavailable'; readonly operation: string; readonly code: string }

export interface MailOutboxDrainOptions {
  readonly store: MailOutboxStore
  readonly mailer: Mailer
  /** The protector the messages were sealed with (`sealOutboxMessage`). */
  readonly protector: OAuthTransactionProtector
  /** Default `() => new Date()`. */
  readonly clock?: () => Date
  /** Rows claimed per round, 1..1000. Default 50. */
  readonly batchSize?: number
  /** Messages sent at once, 1..64. Default 8 (match the mailer's pool). */
  readonly concurrency?: number
  /** How long a claimed row stays hidden from other drains, in seconds. Default 120. */
  readonly leaseSeconds?: number
  readonly backoff?: MailOutboxBackoff
  /** Failed attempts after which a message fails for good. Default 25. */
  readonly maxAttempts?: number
  /** Age after which a message that is still not sent fails for good, in ms. Default 3 days. */
  readonly maxAgeMs?: number
  /** How often the loop (`start`) looks for due messages when nobody calls `wake`. Default 5 000 ms. */
  readonly pollIntervalMs?: number
  /** Source of the jitter, a number in [0, 1). Default `Math.random`. */
  readonly random?: () => number
  /** Called for every outcome; a throwing listener is ignored. */
  readonly onEvent?: (event: MailOutboxDrainEvent) => void
}

const MAX_TIMER_MS = 2 ** 31 - 1

export const MAIL_OUTBOX_DRAIN_OPTIONS: OptionsShape<MailOutboxDrainOptions> = {
  store: { required: true, kind: 'object' },
  mailer: { required: true, kind: 'object' },
  protector: { required: true, kind: 'object' },
  clock: { kind: 'function' },
  batchSize: { kind: 'number', check: integerBetween(1, MAX_OUTBOX_CLAIM) },
  concurrency: { kind: 'number', check: integerBetween(1, 64) },
  leaseSeconds: { kind: 'number', check: integerBetween(1, MAX_OUTBOX_LEASE_SECONDS) },
  backoff: {
    kind: 'object',
    shape: {
      initialMs: { kind: 'number', check: numberBetween(1, MAX_TIMER_MS) },
      factor: { kind: 'number', check: numberBetween(1, 100) },
      maxMs: { kind: 'number', check: numberBetween(1, 30 * 86_400_000) },
      jitter: { kind: 'number', check: numberBetween(0, 1) },
    },
  },
  maxAttempts: { kind: 'number', check: integerBetween(1, 1000) },
  maxAgeMs: { kind: 'number', check: numberBetween(1, 365 * 86_400_000) },
  pollIntervalMs: { kind: 'number', check: numberBetween(1, MAX_TIMER_MS) },
  random: { kind: 'function' },
  onEvent: { kind: 'function' },
}

/** The backoff with its defaults filled in. */
export function backoffWithDefaults(backoff: MailOutboxBackoff | undefined): Required<MailOutboxBackoff> {
  return {
    initialMs: backoff?.initialMs ?? 1000,
    factor: backoff?.factor ?? 2,
    maxMs: backoff?.maxMs ?? 15 * 60_000,
    jitter: backoff?.jitter ?? 0.5,
  }
}

/** The delay before the next attempt after `attempts` failures (1 or more), in ms. */
export function retryDelayMs(
  backoff: Required<MailOutboxBackoff>,
  attempts: number,
  random: () => number,
): number {
  const exponential = backoff.initialMs * backoff.factor ** Math.max(0, attempts - 1)
  const capped = Math.min(backoff.maxMs, exponential)
  const draw = Math.min(Math.max(random(), 0), 1)
  return Math.max(1, Math.round(capped * (1 - backoff.jitter * draw)))
}
