// Passkeys (WebAuthn Level 3, `@simplewebauthn/server`): the credential and challenge store ports with
// their memory implementations, and the ceremonies (registration, discoverable sign-in, step-up).
export type { PasskeyOptionsJSON } from './ceremony-start.js'
export { PasskeyCeremonyStart } from './ceremony-start.js'
export type { PasskeyErrorCode } from './errors.js'
export { PasskeyError, PasskeyErrorCodes } from './errors.js'
export {
  requireCredentialId,
  requirePasskeyAccountId,
  requirePasskeyDate,
  requirePasskeyName,
  validatePasskeyAccountRequest,
  validatePasskeyChallenge,
  validatePasskeyChallengeKey,
  validatePasskeyCredential,
  validateRecordPasskeyUse,
} from './input.js'
export { MemoryPasskeyChallengeStore, MemoryPasskeyStore } from './memory-stores.js'
export type { PasskeyCeremony, PasskeyChallenge, PasskeyCredential } from './records.js'
export type {
  BeginPasskeyAuthentication,
  BeginPasskeyRegistration,
  FinishPasskeyAuthentication,
  FinishPasskeyRegistration,
  PasskeyAssertion,
  PasskeyCeremonies,
  PasskeyStepUpBinding,
} from './ceremonies.js'
export type { PasskeyServiceOptions } from './service.js'
export { PasskeyService } from './service.js'
export type { PasskeyStepUpOptions, PasskeyStepUpRequest } from './step-up.js'
export { PasskeyStepUp } from './step-up.js'
export type {
  PasskeyAccountRequest,
  PasskeyChallengeKey,
  PasskeyChallengeStore,
  PasskeyStore,
  RecordPasskeyUseRequest,
  RemovePasskeyOutcome,
} from './store.js'
