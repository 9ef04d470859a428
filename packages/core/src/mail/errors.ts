import { type ErrorClass, PortcullisError } from '../errors/portcullis-error.js'

/** Stable codes of the mail port. Each says whether sending the same message again may succeed. */
export const MailErrorCodes = {
  /** An address that is malformed, too long, or holds a character no header may carry. Permanent. */
  invalidAddress: 'mail.invalid_address',
  /** A CR, LF or other control character in a display name, subject or other header value. Permanent. */
  headerInjection: 'mail.header_injection',
  /** A message whose data is malformed (an unknown kind, a link that is not http(s), a blank code). Permanent. */
  invalidMessage: 'mail.invalid_message',
  /** A template threw or returned something that is not a subject, a text and an HTML part. Permanent. */
  templateFailed: 'mail.template_failed',
  /** The mail server could not be reached, timed out, or answered 4xx (try again later). Retryable. */
  unavailable: 'mail.unavailable',
  /**
   * The mail server refused the sender's credentials. Retryable: the message is not at fault, and it
   * is delivered once the configuration is fixed.
   */
  authenticationFailed: 'mail.authentication_failed',
  /** The mail server answered 5xx to this message or recipient: sending it again will fail again. Permanent. */
  rejected: 'mail.rejected',
  /** The mailer was closed before the message was sent (shutting down). Retryable elsewhere or later. */
  closed: 'mail.closed',
} as const

export type MailErrorCode = (typeof MailErrorCodes)[keyof typeof MailErrorCodes]

const RETRYABLE: Readonly<Record<MailErrorCode, boolean>> = {
  'mail.invalid_address': false,
  'mail.header_injection': false,
  'mail.invalid_message': false,
  'mail.template_failed': false,
  'mail.unavailable': true,
  'mail.authentication_failed': true,
  'mail.rejected': false,
  'mail.closed': true,
}

const CLASS_OF: Readonly<Record<MailErrorCode, ErrorClass>> = {
  'mail.invalid_address': 'invalid-input',
  'mail.header_injection': 'invalid-input',
  'mail.invalid_message': 'invalid-input',
  'mail.template_failed': 'configuration',
  'mail.unavailable': 'unavailable',
  'mail.authentication_failed': 'unavailable',
  'mail.rejected': 'invalid-input',
  'mail.closed': 'unavailable',
}

export interface MailErrorOptions {
  /** The message field at fault (`to.address`, `to.name`, `subject`, `link`): a name, never a value. */
  readonly field?: string
  /** The SMTP reply code, when a server answered (451, 550, ...). */
  readonly responseCode?: number
  /** The SMTP enhanced status code of the reply (`5.1.1`), when it had one. */
  readonly enhancedStatus?: string
  /** The SMTP command that was answered (`RCPT TO`, `DATA`, `AUTH PLAIN`): its verb only, never its arguments. */
  readonly command?: string
  /** The transport's own error code (`ECONNECTION`, `ETIMEDOUT`, `EAUTH`, ...). */
  readonly transportCode?: string
}

/**
 * Every deliberate failure of the mail port. `retryable` tells a caller (an outbox drain) whether the
 * same message may be sent again later. Messages and fields never carry credentials, codes or links,
 * and no lower-level error is kept as `cause` (a transport's errors may echo what was sent).
 */
export class MailError extends PortcullisError {
  declare readonly code: MailErrorCode
  readonly retryable: boolean
  declare readonly field?: string
  declare readonly responseCode?: number
  declare readonly enhancedStatus?: string
  declare readonly command?: string
  declare readonly transportCode?: string

  constructor(code: MailErrorCode, message: string, options: MailErrorOptions = {}) {
    super(code, CLASS_OF[code], message)
    this.retryable = RETRYABLE[code]
    if (options.field !== undefined) this.field = options.field
    if (options.responseCode !== undefined) this.responseCode = options.responseCode
    if (options.enhancedStatus !== undefined) this.enhancedStatus = options.enhancedStatus
    if (options.command !== undefined) this.command = options.command
    if (options.transportCode !== undefined) this.transportCode = options.transportCode
  }

  override toJSON(): ReturnType<PortcullisError['toJSON']> & { retryable: boolean } & MailErrorOptions {
    const json: ReturnType<PortcullisError['toJSON']> & { retryable: boolean } & {
      -readonly [K in keyof MailErrorOptions]: MailErrorOptions[K]
    } = { ...super.toJSON(), retryable: this.retryable }
    if (this.field !== undefined) json.field = this.field
    if (this.responseCode !== undefined) json.responseCode = this.responseCode
    if (this.enhancedStatus !== undefined) json.enhancedStatus = this.enhancedStatus
    if (this.command !== undefined) json.command = this.command
    if (this.transportCode !== undefined) json.transportCode = this.transportCode
    return json
  }
}

/** Whether an error is a `MailError` that says a later attempt may succeed. */
export function isRetryableMailError(error: unknown): boolean {
  return error instanceof MailError && error.retryable
}
