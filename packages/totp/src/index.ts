// The TOTP second factor (RFC 6238, `otpauth`) and its recovery codes. The store port, its memory
// implementation and `TotpSecondFactor` are `@portcullis/core/totp`.
export type { TotpAttemptLimit } from './attempts.js'
export { DEFAULT_TOTP_ATTEMPTS } from './attempts.js'
export {
  normalizeTotpCode,
  TOTP_DIGITS,
  TOTP_PERIOD_SECONDS,
  TOTP_SECRET_BYTES,
  totpCodeAt,
} from './one-time-code.js'
export type {
  ReencryptTotpSecretsOptions,
  TotpReencryptionReport,
  UnreadableTotpSecret,
} from './reencryption.js'
export { reencryptTotpSecrets } from './reencryption.js'
export { RECOVERY_CODE_COUNT, TotpService } from './service.js'
export type { TotpServiceOptions } from './service-options.js'
