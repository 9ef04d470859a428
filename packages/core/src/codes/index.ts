// One-time codes: the store port, its memory implementation, code and flow-id generation, and the
// versioned HMAC keys codes are digested with.
export type { CodeDigestInput, CodeKey, LoadCodeKeyOptions } from './code-keys.js'
export {
  CodeKeyRing,
  codeCandidates,
  codeDigestMatches,
  digestCode,
  loadCodeKey,
  MIN_CODE_KEY_BYTES,
} from './code-keys.js'
export type { OneTimeCodeErrorCode } from './errors.js'
export { OneTimeCodeError, OneTimeCodeErrorCodes } from './errors.js'
export type { CodeRandomSource, GenerateCodeOptions } from './generate.js'
export { DIGIT_ALPHABET, generateCode, generateFlowId, UNAMBIGUOUS_ALPHABET } from './generate.js'
export type { ValidIssueRequest } from './input.js'
export {
  CODE_PURPOSES,
  MAX_CODE_ATTEMPTS,
  MAX_CODE_LIFETIME_MS,
  validateConsumeRequest,
  validateIssueRequest,
  validateRevokeRequest,
  validateSweepRequest,
} from './input.js'
export type { MemoryCodeOutbox, MemoryOneTimeCodeStoreOptions } from './memory-store.js'
export { MemoryOneTimeCodeStore } from './memory-store.js'
export type {
  CodeCandidate,
  CodePurpose,
  ConsumeCodeOutcome,
  ConsumeCodeRequest,
  IssueCodeRequest,
  NewOneTimeCode,
  OneTimeCodeRecord,
  OneTimeCodeStore,
  RevokeCodesRequest,
  SweepCodesRequest,
} from './port.js'
