// Step-up: one-use credentials bound to account, purpose, security epoch and session.
export { StepUpCredential } from './credential.js'
export type { StepUpErrorCode } from './errors.js'
export { StepUpError, StepUpErrorCodes } from './errors.js'
export { requireStepUpDate, requireStepUpDigest, validateStepUpRecord } from './input.js'
export type { MemoryStepUpStoreOptions } from './memory-store.js'
export { MemoryStepUpStore } from './memory-store.js'
export type {
  StepUpBinding,
  StepUpConsumeRequest,
  StepUpConsumeResult,
  StepUpGrant,
  StepUpIssueRequest,
  StepUpRejection,
  StepUpServiceOptions,
} from './service.js'
export { DEFAULT_STEP_UP_TTL_SECONDS, MAX_STEP_UP_TTL_SECONDS, StepUpService } from './service.js'
export type { StepUpRecord, StepUpStore } from './store.js'
