// Impersonation: an administrator's short-lived, audited session as another account.
export type { ImpersonationErrorCode } from './errors.js'
export { ImpersonationError, ImpersonationErrorCodes } from './errors.js'
export type { ImpersonationEventTarget } from './events.js'
export { ImpersonationEvents } from './events.js'
export type { ExpiredImpersonationsOptions } from './expiry.js'
export {
  expiredImpersonationEntry,
  expiredImpersonationEntryId,
  IMPERSONATION_EXPIRED_REASON,
  recordExpiredImpersonations,
} from './expiry.js'
export type { ImpersonationCookie } from './facts.js'
export {
  administratorTag,
  IMPERSONATION_HANDLE_MARKER,
  impersonationIdOf,
  impersonationTagsOf,
  isImpersonationHandle,
} from './handle.js'
export type { AdministratorSession } from './input.js'
export { MAX_IMPERSONATION_REASON_LENGTH } from './input.js'
export type { ImpersonationsOptions } from './options.js'
export {
  DEFAULT_IMPERSONATE_ADMINISTRATORS_CAPABILITY,
  DEFAULT_IMPERSONATION_CAPABILITY,
  DEFAULT_IMPERSONATION_TTL_SECONDS,
  IMPERSONATION_STEP_UP_PURPOSE,
  MAX_IMPERSONATION_TTL_SECONDS,
} from './options.js'
export type { ImpersonationRefusal, ImpersonationRefusalRequest } from './refusal.js'
export { ImpersonationRefusedActs } from './refusal.js'
export type { EndedImpersonation, StartedImpersonation } from './results.js'
export { Impersonations } from './service.js'
