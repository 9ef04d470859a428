// The Mailer port of @portcullis/core/mail over SMTP with nodemailer.
export { mailErrorFromTransport } from './smtp-errors.js'
export type { SmtpMailerOptions, SmtpSecurity } from './smtp-mailer.js'
export { SmtpMailer } from './smtp-mailer.js'
