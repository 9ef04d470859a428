// Account administration: search and view accounts, disable and enable, sign out every session, revoke
// an API key or a grant, require a password reset, delete; every change behind a fresh step-up of the
// administrator and written to the security log. HTTP routes are `administrationRouteTable` of
// `@portcullis/http/administration`.
export type { AdministratorRule } from './administrators.js'
export {
  ADMINISTRATION_STEP_UP_PURPOSE,
  administratorGuard,
  administratorRule,
  DEFAULT_ADMINISTRATOR_RULE,
  isAdministrator,
} from './administrators.js'
export type { AdministrationAuditFacts, AdministrationEventType } from './audit.js'
export {
  ADMINISTRATION_EVENT_TYPES,
  AdministrationAudit,
  MAX_ADMINISTRATION_REASON,
  requireAdministrationReason,
} from './audit.js'
export type { AdministrationErrorCode } from './errors.js'
export { AdministrationError, AdministrationErrorCodes } from './errors.js'
export type {
  AccountAdministrationOptions,
  AdministrativeChange,
  AdministrativeOutcome,
  PasswordResetMailer,
} from './service.js'
export { AccountAdministration } from './service.js'
export type { AdministeredAccount, AdministeredApiKeys, AdministeredFactors } from './view.js'
