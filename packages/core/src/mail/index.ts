// The mail port: typed messages of the account flows, their checks against header and address
// injection, replaceable templates (text and HTML, the locale passed through), the default English
// templates, and a memory mailer. The SMTP transport is `@portcullis/mail`.
export { defaultMailTemplates } from './default-templates.js'
export type { MailOutboxDrainReport } from './drain.js'
export { MailOutboxDrain } from './drain.js'
export type { MailOutboxBackoff, MailOutboxDrainEvent, MailOutboxDrainOptions } from './drain-options.js'
export { retryDelayMs } from './drain-options.js'
export type { MailErrorCode, MailErrorOptions } from './errors.js'
export { isRetryableMailError, MailError, MailErrorCodes } from './errors.js'
export type { MailAddress } from './headers.js'
export { MAX_SUBJECT_LENGTH, requireHeaderText, requireMailAddress, requireMailbox } from './headers.js'
export type { SafeHtml } from './html.js'
export { escapeHtml, html, isSafeHtml, trustedHtml } from './html.js'
export type { Mailer, MailReceipt, MailSendOptions, SentMail } from './mailer.js'
export { MemoryMailer, requireIdempotencyKey } from './mailer.js'
export type { MemoryNotificationSettingsOptions } from './memory-notification-settings.js'
export {
  MemoryNotificationSettings,
  NOTIFICATION_SETTINGS_INVALID,
  validateSetOptOuts,
  validateSettingsAccountId,
} from './memory-notification-settings.js'
export type { FailedOutboxRecord } from './memory-outbox.js'
export { MemoryMailOutbox } from './memory-outbox.js'
export type {
  EmailChangeNoticeMessage,
  EmailChangeVerificationMessage,
  ExistingAccountSignUpMessage,
  InvitationMessage,
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
export type { NotificationSettingsStore, SetNotificationOptOutsRequest } from './notification-settings.js'
export type {
  ClaimOutboxRequest,
  FailOutboxRequest,
  MailOutboxStore,
  OutboxEntry,
  OutboxRecord,
  RescheduleOutboxRequest,
} from './outbox.js'
export {
  duplicateOutboxEntry,
  MAX_OUTBOX_CLAIM,
  MAX_OUTBOX_ENTRIES_PER_CHANGE,
  MAX_OUTBOX_ENVELOPE_LENGTH,
  MAX_OUTBOX_LEASE_SECONDS,
  OutboxErrorCodes,
  validateClaimOutbox,
  validateFailOutbox,
  validateOutboxEntries,
  validateOutboxEntry,
  validateOutboxId,
  validateRescheduleOutbox,
} from './outbox-input.js'
export type { SealOutboxOptions } from './outbox-seal.js'
export {
  OUTBOX_ENVELOPE_PURPOSE,
  openOutboxMessage,
  outboxAssociatedData,
  sealOutboxMessage,
} from './outbox-seal.js'
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
