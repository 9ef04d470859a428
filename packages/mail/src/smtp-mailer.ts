// The mail port over SMTP with nodemailer: a pool of connections that are always encrypted (implicit
// TLS or a required STARTTLS; plaintext only to a loopback server), certificates always checked,
// every message checked and rendered by core before it is handed to the transport.
import { inspect } from 'node:util'
import { ConfigurationError } from '@portcullis/core/errors'
import {
  defaultMailTemplates,
  type MailAddress,
  MailError,
  MailErrorCodes,
  type Mailer,
  type MailMessage,
  type MailReceipt,
  MailRenderer,
  type MailSendOptions,
  type MailTemplates,
  requireIdempotencyKey,
  requireMailbox,
} from '@portcullis/core/mail'
import { createTransport } from 'nodemailer'
import { mailErrorFromTransport } from './smtp-errors.js'

/**
 * How the connection is protected: `tls` is implicit TLS from the first byte (port 465), `starttls`
 * requires the server's STARTTLS before anything else is sent (port 587) and fails when it is not
 * offered, `plain` sends in clear text and is accepted for a loopback host only (a development server).
 */
export type SmtpSecurity = 'tls' | 'starttls' | 'plain'

export interface SmtpMailerOptions {
  readonly host: string
  /** Defaults to 465 for `tls`, 587 for `starttls`, 25 for `plain`. */
  readonly port?: number
  readonly security: SmtpSecurity
  /** SMTP AUTH credentials (PLAIN or LOGIN, over the protected connection). */
  readonly auth?: { readonly user: string; readonly pass: string }
  /** The sender of every message. */
  readonly from: MailAddress
  /** The product's name in the default templates. */
  readonly appName: string
  /** Defaults to `defaultMailTemplates`. */
  readonly templates?: MailTemplates
  /** Certificate authorities to trust instead of the system's (a private CA). Verification is never off. */
  readonly ca?: string | readonly string[]
  /** The name the server's certificate must carry, when it differs from `host` (an address). */
  readonly servername?: string
  /** Pooled connections: at most this many at once (default 5). */
  readonly maxConnections?: number
  /** Messages per connection before it is replaced (default 100). */
  readonly maxMessages?: number
  /** Milliseconds to connect, to be greeted and of socket inactivity (defaults 10 000, 10 000, 30 000). */
  readonly timeouts?: {
    readonly connectionMs?: number
    readonly greetingMs?: number
    readonly socketMs?: number
  }
}

const DEFAULT_PORTS: Readonly<Record<SmtpSecurity, number>> = { tls: 465, starttls: 587, plain: 25 }

function configurationError(option: string, message: string): ConfigurationError {
  return new ConfigurationError('mail.invalid_configuration', message, { option: `SmtpMailer.${option}` })
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host)
}

function positiveInteger(value: number | undefined, option: string, fallback: number, max: number): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw configurationError(option, `${option} must be an integer from 1 to ${max}`)
  }
  return value
}

type Transport = ReturnType<typeof createTransport<unknown>>

/** The `Mailer` port over SMTP. Close it on shutdown to end the pooled connections. */
export class SmtpMailer implements Mailer {
  readonly #transport: Transport
  readonly #renderer: MailRenderer
  readonly #from: MailAddress
  readonly #messageDomain: string
  readonly #description: string
  #closed = false

  constructor(options: SmtpMailerOptions) {
    const { host, security } = options
    if (typeof host !== 'string' || host === '' || /[\s/@]/.test(host)) {
      throw configurationError('host', 'host must be a host name or address')
    }
    if (!(security in DEFAULT_PORTS))
      throw configurationError('security', 'security must be tls, starttls or plain')
    if (security === 'plain' && !isLoopback(host)) {
      throw configurationError(
        'security',
        'plain SMTP is allowed to a loopback host only: use tls or starttls',
      )
    }
    const port = positiveInteger(options.port, 'port', DEFAULT_PORTS[security], 65_535)
    try {
      this.#from = requireMailbox(options.from, 'from')
    } catch (error) {
      throw configurationError('from', `from: ${(error as Error).message}`)
    }
    if (
      options.auth !== undefined &&
      (typeof options.auth.user !== 'string' ||
        options.auth.user === '' ||
        typeof options.auth.pass !== 'string')
    ) {
      throw configurationError('auth', 'auth needs a user and a pass')
    }
    this.#renderer = new MailRenderer({
      templates: options.templates ?? defaultMailTemplates,
      appName: options.appName,
    })
    this.#messageDomain = this.#from.address.slice(this.#from.address.lastIndexOf('@') + 1)
    this.#description = `SmtpMailer(${security}://${host}:${port})`
    const timeouts = options.timeouts ?? {}
    this.#transport = createTransport({
      pool: true,
      host,
      port,
      secure: security === 'tls',
      requireTLS: security === 'starttls',
      ignoreTLS: security === 'plain',
      ...(options.auth === undefined ? {} : { auth: { user: options.auth.user, pass: options.auth.pass } }),
      tls: {
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
        ...(options.ca === undefined
          ? {}
          : { ca: typeof options.ca === 'string' ? options.ca : [...options.ca] }),
        ...(options.servername === undefined ? {} : { servername: options.servername }),
      },
      maxConnections: positiveInteger(options.maxConnections, 'maxConnections', 5, 100),
      maxMessages: positiveInteger(options.maxMessages, 'maxMessages', 100, 100_000),
      connectionTimeout: positiveInteger(timeouts.connectionMs, 'timeouts.connectionMs', 10_000, 600_000),
      greetingTimeout: positiveInteger(timeouts.greetingMs, 'timeouts.greetingMs', 10_000, 600_000),
      socketTimeout: positiveInteger(timeouts.socketMs, 'timeouts.socketMs', 30_000, 600_000),
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
      debug: false,
    })
  }

  /**
   * Renders the message with the templates and sends it. Resolves once the server accepted it; throws
   * `MailError` with `retryable` otherwise (see the `Mailer` port).
   */
  async send(message: MailMessage, options?: MailSendOptions): Promise<MailReceipt> {
    const key = requireIdempotencyKey(options)
    const rendered = this.#renderer.render(message)
    if (this.#closed) throw new MailError(MailErrorCodes.closed, 'the mailer is closed')
    const to = rendered.message.to
    let info: { messageId?: unknown }
    try {
      info = (await this.#transport.sendMail({
        from:
          this.#from.name === undefined
            ? this.#from.address
            : { name: this.#from.name, address: this.#from.address },
        to: to.name === undefined ? to.address : { name: to.name, address: to.address },
        subject: rendered.subject,
        text: rendered.text,
        html: rendered.html,
        ...(key === undefined ? {} : { messageId: `<${key}@${this.#messageDomain}>` }),
        headers: { 'Auto-Submitted': 'auto-generated', 'Content-Language': rendered.language },
        disableFileAccess: true,
        disableUrlAccess: true,
      })) as { messageId?: unknown }
    } catch (error) {
      if (this.#closed) throw new MailError(MailErrorCodes.closed, 'the mailer was closed while sending')
      throw mailErrorFromTransport(error)
    }
    return { messageId: typeof info.messageId === 'string' ? info.messageId : '' }
  }

  /** Connects, greets, upgrades and authenticates once: a readiness check. Throws `MailError` like `send`. */
  async verify(): Promise<void> {
    if (this.#closed) throw new MailError(MailErrorCodes.closed, 'the mailer is closed')
    try {
      await this.#transport.verify()
    } catch (error) {
      throw mailErrorFromTransport(error)
    }
  }

  /** Ends the pooled connections; a later `send` throws `mail.closed` (retryable elsewhere). */
  close(): void {
    this.#closed = true
    this.#transport.close()
  }

  toString(): string {
    return this.#description
  }

  toJSON(): string {
    return this.#description
  }

  [inspect.custom](): string {
    return this.#description
  }
}
