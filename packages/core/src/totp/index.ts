// The TOTP second factor (RFC 6238) and recovery codes: the store port and its memory implementation,
// the `TotpFactor` shape, recovery codes and the second step of a password sign-in. The one-time codes
// themselves (`TotpService`, with `otpauth`) are `@portcullis/totp`.
export { TotpEnrollmentStart } from './enrollment-start.js'
export type { TotpErrorCode, TotpErrorOptions } from './errors.js'
export { invalidTotpInput, TotpError, TotpErrorCodes } from './errors.js'
export type { TotpFactor, TotpRequestContext, TotpStatus } from './factor.js'
export {
  MAX_RECOVERY_CODES,
  requireRecoveryDigest,
  requireSealedSecret,
  requireTotpAccountId,
  requireTotpDate,
  requireTotpStep,
  validateEnableTotp,
  validateRedeemRecoveryCode,
  validateRemoveTotpOptions,
  validateReplaceRecoveryCodes,
  validateSavePendingTotp,
  validateUseTotpStep,
} from './input.js'
export { MemoryTotpStore } from './memory-store.js'
export type { RecoveryCodePepper } from './recovery-codes.js'
export {
  newRecoveryCode,
  normalizeRecoveryCode,
  RecoveryCodePeppers,
  RecoveryCodes,
} from './recovery-codes.js'
export type {
  ListStaleTotpSecretsRequest,
  ResealTotpSecretRequest,
  StaleTotpSecret,
  TotpSecretResealing,
} from './resealing.js'
export {
  sealedSecretKeyVersion,
  validateListStaleTotpSecrets,
  validateResealTotpSecret,
} from './resealing.js'
export type { TotpSecondFactorOptions } from './second-factor.js'
export { TotpSecondFactor } from './second-factor.js'
export type {
  EnableTotpRequest,
  RecoveryCodeSet,
  RedeemRecoveryCodeRequest,
  RemoveTotpOptions,
  ReplaceRecoveryCodesRequest,
  SavePendingTotpRequest,
  TotpEnrollment,
  TotpEnrollmentStatus,
  TotpEnrollments,
  TotpStore,
  UseTotpStepRequest,
} from './store.js'
