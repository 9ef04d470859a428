export type { ActivityItem, ActivityKind, ActivityPage } from './activity.js'
export { activityOf, recentActivity } from './activity.js'
export type {
  ClientAddressRecording,
  LoggableEvent,
  SecurityLogEntryOptions,
  UserAgentDescriber,
} from './entries.js'
export { SECURITY_LOG_DETAIL_FIELDS, SecurityLogEntries } from './entries.js'
export type { SecurityLogDetail, SecurityLogDevice, SecurityLogEntry, SecurityLogPosition } from './entry.js'
export {
  decodeSecurityLogCursor,
  encodeSecurityLogCursor,
  newerFirst,
  requireSecurityLogDate,
  SECURITY_LOG_LIMITS,
  validateSecurityLogEntry,
} from './entry.js'
export type { SecurityLogErrorCode } from './errors.js'
export { SecurityLogError, SecurityLogErrorCodes } from './errors.js'
export type { SecurityLogInTransaction, WithSecurityLog } from './in-transaction.js'
export {
  stageSecurityLog,
  validateSecurityLogEntries,
  writesSecurityLogInTransaction,
} from './in-transaction.js'
export { MemorySecurityLog } from './memory.js'
export type {
  AccountLogRequest,
  SecurityLog,
  SecurityLogPage,
  SweepLogRequest,
  TypeLogRequest,
} from './port.js'
export {
  checkAccountRequest,
  checkAppend,
  checkSweepRequest,
  checkTypeRequest,
  SECURITY_LOG_BATCH_MAX,
} from './requests.js'
export type { SecurityLogRetentionOptions } from './retention.js'
export { SECURITY_LOG_RETENTION_DAYS, securityLogCutoff, sweepSecurityLog } from './retention.js'
export type { SecurityLogWriterOptions, SecurityLogWriterReport, SecurityLogWriterStats } from './writer.js'
export { SecurityLogWriter } from './writer.js'
