// The TOTP second factor (RFC 6238) and recovery codes: the store port and its memory implementation,
// the service (enrollment, verification with replay protection, recovery codes) and the second step of a
// password sign-in.
export type { TotpAttemptLimit } from './attempts.js'
export { DEFAULT_TOTP_ATTEMPTS } from './attempts.js'
export { TotpEnrollmentStart } from './enrollment-start.js'
export type { TotpErrorCode, TotpErrorOptions } from './errors.js'
export { TotpError, TotpErrorCodes } from './errors.js'
export {
  MAX_RECOVERY_CODES,
  requireRecoveryDigest,
  requireSealedSecret,
  requireTotpAccountId,
  requireTotpDate,
  requireTotpStep,
  validateEnableTotp,
  validateRedeemRecoveryCode,
  validateReplaceRecoveryCodes,
  validateSavePendingTotp,
  validateUseTotpStep,
} from './input.js'
export { MemoryTotpStore } from './memory-store.js'
export {
  normalizeTotpCode,
  TOTP_DIGITS,
  TOTP_PERIOD_SECONDS,
  TOTP_SECRET_BYTES,
  totpCodeAt,
} from './one-time-code.js'
export type { RecoveryCodePepper } from './recovery-codes.js'
export { normalizeRecoveryCode, RecoveryCodePeppers, RecoveryCodes } from './recovery-codes.js'
export type { TotpSecondFactorOptions } from './second-factor.js'
export { TotpSecondFactor } from './second-factor.js'
export type { TotpFactor, TotpRequestContext, TotpStatus } from './factor.js'
export type { TotpServiceOptions } from './service.js'
export { RECOVERY_CODE_COUNT, TotpService } from './service.js'
export type {
  EnableTotpRequest,
  RecoveryCodeSet,
  RedeemRecoveryCodeRequest,
  ReplaceRecoveryCodesRequest,
  SavePendingTotpRequest,
  TotpEnrollment,
  TotpEnrollmentStatus,
  TotpEnrollments,
  TotpStore,
  UseTotpStepRequest,
} from './store.js'
