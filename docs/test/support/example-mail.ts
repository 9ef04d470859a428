// What the examples that send mail share: a real SMTP server in this process with an SmtpMailer sending
// to it over plain SMTP on loopback, both closed when the file ends.
import type { AddressInfo } from 'node:net'
import type { MailOutboxDrain } from '@portcullis/core/mail'
import { SmtpMailer } from '@portcullis/mail'
import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { afterAll } from 'vitest'

export interface ExampleSmtp {
  /** Every mail the server received, parsed, in the order received. */
  readonly received: ParsedMail[]
  /** Sends to the server, from `from`, as "Example". */
  readonly mailer: SmtpMailer
  /** Runs one round of `drain` and answers the mails it delivered. */
  delivered(drain: MailOutboxDrain): Promise<ParsedMail[]>
}

/** Starts the SMTP server and its mailer; both closed after the file. */
export async function startExampleSmtp(from: string): Promise<ExampleSmtp> {
  const received: ParsedMail[] = []
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData: (stream, _session, callback) => {
      simpleParser(stream).then((mail) => {
        received.push(mail)
        callback()
      }, callback)
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const mailer = new SmtpMailer({
    host: '127.0.0.1',
    port: (server.server.address() as AddressInfo).port,
    security: 'plain',
    from: { address: from },
    appName: 'Example',
  })
  afterAll(async () => {
    mailer.close()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return {
    received,
    mailer,
    delivered: async (drain) => {
      const before = received.length
      await drain.drainOnce()
      return received.slice(before)
    },
  }
}
