// Passkeys (WebAuthn Level 3): the credential and challenge store ports with their memory
// implementations, the `PasskeyCeremonies` shape the HTTP layer uses, and the passkey step-up. The
// ceremonies themselves (`PasskeyService`, with `@simplewebauthn/server`) are `@portcullis/passkeys`.

export type {
  BeginPasskeyAuthentication,
  BeginPasskeyRegistration,
  FinishPasskeyAuthentication,
  FinishPasskeyRegistration,
  PasskeyAssertion,
  PasskeyCeremonies,
  PasskeyStepUpBinding,
} from './ceremonies.js'
export type { PasskeyOptionsJSON } from './ceremony-start.js'
export { PasskeyCeremonyStart } from './ceremony-start.js'
export type { PasskeyErrorCode } from './errors.js'
export { invalidPasskeyInput, PasskeyError, PasskeyErrorCodes } from './errors.js'
export {
  requireCredentialId,
  requirePasskeyAccountId,
  requirePasskeyDate,
  requirePasskeyName,
  validatePasskeyAccountRequest,
  validatePasskeyChallenge,
  validatePasskeyChallengeKey,
  validatePasskeyChangeOptions,
  validatePasskeyCredential,
  validateRecordPasskeyUse,
} from './input.js'
export { MemoryPasskeyChallengeStore, MemoryPasskeyStore } from './memory-stores.js'
export type { PasskeyCeremony, PasskeyChallenge, PasskeyCredential } from './records.js'
export type { PasskeyStepUpOptions, PasskeyStepUpRequest } from './step-up.js'
export { PasskeyStepUp } from './step-up.js'
export type {
  PasskeyAccountRequest,
  PasskeyChallengeKey,
  PasskeyChallengeStore,
  PasskeyChangeOptions,
  PasskeyStore,
  RecordPasskeyUseRequest,
  RemovePasskeyOutcome,
} from './store.js'
