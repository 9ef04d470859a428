// The mail port: typed messages of the account flows, their checks against header and address
// injection, replaceable templates (text and HTML, the locale passed through), the default English
// templates, and a memory mailer. The SMTP transport is `@portcullis/mail`.
export { defaultMailTemplates } from './default-templates.js'
export type { MailErrorCode, MailErrorOptions } from './errors.js'
export { isRetryableMailError, MailError, MailErrorCodes } from './errors.js'
export type { MailAddress } from './headers.js'
export { MAX_SUBJECT_LENGTH, requireHeaderText, requireMailAddress, requireMailbox } from './headers.js'
export type { SafeHtml } from './html.js'
export { escapeHtml, html, isSafeHtml, trustedHtml } from './html.js'
export type { Mailer, MailReceipt, MailSendOptions, SentMail } from './mailer.js'
export { MemoryMailer, requireIdempotencyKey } from './mailer.js'
export type {
  EmailChangeNoticeMessage,
  EmailChangeVerificationMessage,
  ExistingAccountSignUpMessage,
  MailFactor,
  MailMessage,
  MailMessageKind,
  MailMessageOf,
  PasswordResetMessage,
  SecurityChange,
  SecurityChangeType,
  SecurityNotificationMessage,
  SignInCodeMessage,
  UnknownAccountResetMessage,
  VerificationMessage,
} from './messages.js'
export { MAIL_MESSAGE_KINDS, SECURITY_CHANGE_TYPES } from './messages.js'
export type {
  MailRendererOptions,
  MailTemplate,
  MailTemplateContext,
  MailTemplateOutput,
  MailTemplates,
  RenderedMail,
} from './templates.js'
export { MailRenderer, overrideTemplates, templatesByLocale } from './templates.js'
export { validateMailMessage } from './validate.js'
