// The mail port: one operation, which delivers a typed message or throws a `MailError` saying whether a
// later attempt may succeed (what an outbox drain needs to retry or give up).
import { MailError, MailErrorCodes } from './errors.js'
import type { MailMessage } from './messages.js'
import type { MailRenderer, RenderedMail } from './templates.js'

/** What a delivered message is known by. */
export interface MailReceipt {
  /** The `Message-ID` header (`<...@...>`). */
  readonly messageId: string
}

export interface MailSendOptions {
  /**
   * A stable identity of this message (an outbox row's id), so a retry after a lost reply carries the
   * same `Message-ID`: letters, digits, `.`, `-` and `_`, at most 100.
   */
  readonly idempotencyKey?: string
}

/**
 * Sends the messages of the account flows. `send` resolves once a mail server accepted the message
 * and throws `MailError` otherwise: `retryable` true (`mail.unavailable`,
 * `mail.authentication_failed`, `mail.closed`) means the same message may be sent again later; false
 * (`mail.invalid_address`, `mail.header_injection`, `mail.invalid_message`, `mail.template_failed`,
 * `mail.rejected`) means it never will be.
 */
export interface Mailer {
  send(message: MailMessage, options?: MailSendOptions): Promise<MailReceipt>
}

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._-]{1,100}$/

/** Checks an idempotency key; returns it or undefined. */
export function requireIdempotencyKey(options: MailSendOptions | undefined): string | undefined {
  const key = options?.idempotencyKey
  if (key === undefined) return undefined
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
    throw new MailError(
      MailErrorCodes.invalidMessage,
      'idempotencyKey must be 1 to 100 of A-Z a-z 0-9 . - _',
      {
        field: 'idempotencyKey',
      },
    )
  }
  return key
}

/** One message a `MemoryMailer` accepted. */
export interface SentMail extends RenderedMail {
  readonly messageId: string
}

/**
 * A mailer that renders and keeps what it is asked to send, for tests and single-process development:
 * the same checks and templates as a real transport, no delivery.
 */
export class MemoryMailer implements Mailer {
  readonly #renderer: MailRenderer
  readonly #sent: SentMail[] = []
  #counter = 0

  constructor(renderer: MailRenderer) {
    this.#renderer = renderer
  }

  async send(message: MailMessage, options?: MailSendOptions): Promise<MailReceipt> {
    const key = requireIdempotencyKey(options)
    const rendered = this.#renderer.render(message)
    const messageId = `<${key ?? `memory-${++this.#counter}`}@portcullis.invalid>`
    this.#sent.push({ ...rendered, messageId })
    return { messageId }
  }

  /** Every message sent so far, oldest first. */
  get sent(): readonly SentMail[] {
    return [...this.#sent]
  }

  /** The messages sent so far, removed from the mailer. */
  take(): SentMail[] {
    return this.#sent.splice(0, this.#sent.length)
  }
}
