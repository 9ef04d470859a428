import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { type AddressObject, simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'

// The development mailbox: an SMTP server in the app's own process, on loopback, that keeps what it
// receives in memory for `/dev/mailbox`. The app's mailer sends to it over real SMTP (nodemailer through
// `SmtpMailer`), so what the page shows is what a mail client would show: the message as it travelled.

/** One message as the mailbox received it. */
export interface ReceivedMail {
  readonly id: string
  readonly receivedAt: Date
  readonly from: string
  /** The envelope's recipients (`RCPT TO`). */
  readonly to: readonly string[]
  readonly subject: string
  /** The plain-text part, as the mail client shows it. */
  readonly text: string
  readonly messageId: string | undefined
}

/** How many messages the mailbox keeps; older ones are dropped (it lives in memory). */
export const MAILBOX_CAPACITY = 200
/** The largest message the server accepts. */
const MAX_MESSAGE_BYTES = 512 * 1024

const addressText = (value: AddressObject | AddressObject[] | undefined): string =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((each) => each.text).join(', ')

export interface DevelopmentMailbox {
  /** `127.0.0.1` and the port the server listens on (what the mailer connects to). */
  readonly host: string
  readonly port: number
  /** Newest first. */
  list(): readonly ReceivedMail[]
  close(): Promise<void>
}

/** Starts the SMTP server on a free loopback port (plain SMTP: it never leaves this machine). */
export async function startDevelopmentMailbox(): Promise<DevelopmentMailbox> {
  const received: ReceivedMail[] = []
  const server = new SMTPServer({
    logger: false,
    banner: 'Portcullis reference app development mailbox',
    disabledCommands: ['STARTTLS', 'AUTH'],
    hideSTARTTLS: true,
    authOptional: true,
    size: MAX_MESSAGE_BYTES,
    closeTimeout: 1_000,
    onConnect(session, callback) {
      // It listens on loopback only; a connection from elsewhere would be a misconfiguration.
      const peer = session.remoteAddress.replace(/^::ffff:/, '')
      if (peer === '127.0.0.1' || peer === '::1') callback()
      else callback(Object.assign(new Error('loopback only'), { responseCode: 554 }))
    },
    onData(stream, session, callback) {
      simpleParser(stream, { skipHtmlToText: true, skipImageLinks: true }).then(
        (parsed) => {
          received.unshift({
            id: randomUUID(),
            receivedAt: new Date(),
            from: addressText(parsed.from),
            to: session.envelope.rcptTo.map((recipient) => recipient.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            messageId: parsed.messageId,
          })
          received.splice(MAILBOX_CAPACITY)
          callback()
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error('unreadable message')),
      )
    },
  })
  const host = '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  // A client that goes away mid-message is no reason to stop the app.
  server.on('error', () => undefined)
  const port = (server.server.address() as AddressInfo).port
  let closed: Promise<void> | undefined
  return {
    host,
    port,
    list: () => [...received],
    close() {
      closed ??= new Promise<void>((resolve) => server.close(() => resolve()))
      return closed
    },
  }
}
