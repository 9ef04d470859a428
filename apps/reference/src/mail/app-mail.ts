import { SmtpMailer } from '@portcullis/mail'
import { type DevelopmentMailbox, startDevelopmentMailbox } from './development-mailbox.js'
import type { MailSettings } from './mail-settings.js'

/** The product name the mail templates use. */
export const MAIL_APP_NAME = 'Portcullis reference app'

/** The app's mail transport: nodemailer over SMTP to a real server or to the development mailbox. */
export interface AppMail {
  /** Absent when mail has nowhere to go (production without `SMTP_URL`): messages wait in the outbox. */
  readonly mailer?: SmtpMailer
  /** The in-process SMTP server and what it received, in development. */
  readonly mailbox?: DevelopmentMailbox
  /** One line for the console (never the credentials of `SMTP_URL`). */
  readonly description: string
  close(): Promise<void>
}

/**
 * Starts what the settings ask for: the development mailbox (an SMTP server on a free loopback port)
 * and a pooled `SmtpMailer` sending to it in plain SMTP (loopback only), or a mailer for the server in
 * `SMTP_URL` (STARTTLS or TLS, certificates checked).
 */
export async function startAppMail(settings: MailSettings, mailboxUrl: string): Promise<AppMail> {
  const common = { from: settings.from, appName: MAIL_APP_NAME }
  if (settings.smtp !== undefined) {
    const smtp = settings.smtp
    const mailer = new SmtpMailer({
      ...common,
      host: smtp.host,
      security: smtp.security,
      ...(smtp.port === undefined ? {} : { port: smtp.port }),
      ...(smtp.auth === undefined ? {} : { auth: smtp.auth }),
      ...(smtp.ca === undefined ? {} : { ca: smtp.ca }),
    })
    const how = { starttls: 'STARTTLS', tls: 'TLS', plain: 'plain SMTP on loopback' }[smtp.security]
    return {
      mailer,
      description: `mail: ${mailer.toString().replace(/^SmtpMailer\(|\)$/g, '')} from SMTP_URL (${how}${smtp.auth === undefined ? '' : ', with AUTH'})`,
      async close() {
        mailer.close()
      },
    }
  }
  if (!settings.developmentMailbox) {
    return {
      description:
        'mail: no server (set SMTP_URL); messages wait in the outbox and go out once one is configured',
      async close() {},
    }
  }
  const mailbox = await startDevelopmentMailbox()
  const mailer = new SmtpMailer({
    ...common,
    host: mailbox.host,
    port: mailbox.port,
    security: 'plain',
    maxConnections: 2,
  })
  return {
    mailer,
    mailbox,
    description: `mail: development mailbox at ${mailboxUrl} (an SMTP server in this process; SMTP_URL sends real mail)`,
    async close() {
      mailer.close()
      await mailbox.close()
    },
  }
}
