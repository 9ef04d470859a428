import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/** Stable codes of passkeys (WebAuthn). */
export const PasskeyErrorCodes = {
  /** A malformed argument or response (not a WebAuthn response at all). 400. */
  invalidInput: 'passkey.invalid_input',
  /** The challenge is unknown, expired, already used, of another ceremony, browser or session. 401. */
  challengeInvalid: 'passkey.challenge_invalid',
  /**
   * The response did not verify: wrong origin or RP ID, bad signature, no user verification, a user
   * handle of another account. One code, so failures are no oracle. 401.
   */
  verificationFailed: 'passkey.verification_failed',
  /**
   * No passkey has the response's credential id (it was removed, or belongs to another site's database):
   * the person should sign in another way. It tells only the holder of that random id that it is not
   * registered here; nothing about accounts or signatures. 401.
   */
  unknownCredential: 'passkey.unknown_credential',
  /** The credential's signature counter went backwards: it may be cloned and is refused from now on. 401. */
  credentialSuspended: 'passkey.credential_suspended',
  /** The credential is already registered (to this or another account). 409. */
  alreadyRegistered: 'passkey.already_registered',
  /** The store, randomness or clock failed. 503. */
  unavailable: 'passkey.unavailable',
} as const

export type PasskeyErrorCode = (typeof PasskeyErrorCodes)[keyof typeof PasskeyErrorCodes]

const CLASS_OF: Readonly<Record<PasskeyErrorCode, ErrorClass>> = {
  'passkey.invalid_input': 'invalid-input',
  'passkey.challenge_invalid': 'unauthenticated',
  'passkey.verification_failed': 'unauthenticated',
  'passkey.unknown_credential': 'unauthenticated',
  'passkey.credential_suspended': 'unauthenticated',
  'passkey.already_registered': 'conflict',
  'passkey.unavailable': 'unavailable',
}

/** Every deliberate failure of passkey ceremonies and stores. Messages never hold a challenge or key. */
export class PasskeyError extends PortcullisError {
  declare readonly code: PasskeyErrorCode

  constructor(code: PasskeyErrorCode, message: string, options: PortcullisErrorOptions = {}) {
    super(code, CLASS_OF[code], message, options)
  }
}

export function invalidPasskeyInput(message: string): PasskeyError {
  return new PasskeyError(PasskeyErrorCodes.invalidInput, message)
}
