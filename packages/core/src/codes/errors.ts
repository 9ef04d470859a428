import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/** Stable codes of the one-time code domain. */
export const OneTimeCodeErrorCodes = {
  /** A malformed request: id, purpose, account, address, digest, dates, attempts or outbox entries. Nothing was written. */
  invalidInput: 'codes.invalid_input',
  /** A code key that is missing, too short, badly encoded or listed twice (startup). */
  invalidKey: 'codes.invalid_key',
  /** A code with this flow id is already stored; nothing was written. */
  duplicate: 'codes.duplicate',
  /** The store could not answer (database down, memory store full); nothing was written or consumed. */
  unavailable: 'codes.unavailable',
} as const

export type OneTimeCodeErrorCode = (typeof OneTimeCodeErrorCodes)[keyof typeof OneTimeCodeErrorCodes]

const CLASS_OF: Readonly<Record<OneTimeCodeErrorCode, ErrorClass>> = {
  'codes.invalid_input': 'invalid-input',
  'codes.invalid_key': 'configuration',
  'codes.duplicate': 'conflict',
  'codes.unavailable': 'unavailable',
}

/**
 * Every deliberate failure of code helpers and code stores. Messages name fields, never values: no
 * code, digest or key ever appears in one.
 */
export class OneTimeCodeError extends PortcullisError {
  declare readonly code: OneTimeCodeErrorCode

  constructor(code: OneTimeCodeErrorCode, message: string, options: PortcullisErrorOptions = {}) {
    super(code, CLASS_OF[code], message, options)
  }
}

export function invalidCodeInput(message: string): OneTimeCodeError {
  return new OneTimeCodeError(OneTimeCodeErrorCodes.invalidInput, message)
}
