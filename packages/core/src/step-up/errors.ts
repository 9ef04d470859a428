import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/** Stable codes of the step-up domain. */
export const StepUpErrorCodes = {
  /** Blank account or session binding, malformed purpose, bad epoch or TTL, invalid date. */
  invalidInput: 'step-up.invalid_input',
  /** A credential with the same digest is already stored. */
  duplicate: 'step-up.duplicate',
  /** Randomness, clock or store failed; no credential was issued (or none could be consumed). */
  unavailable: 'step-up.unavailable',
  /** An operation needs a one-use credential of its purpose, and none valid was presented (401). */
  required: 'step-up.required',
  /** The request is an impersonation: no step-up credential is ever issued to it (403). */
  impersonated: 'step-up.impersonated',
} as const

export type StepUpErrorCode = (typeof StepUpErrorCodes)[keyof typeof StepUpErrorCodes]

const CLASS_OF: Readonly<Record<StepUpErrorCode, ErrorClass>> = {
  'step-up.invalid_input': 'invalid-input',
  'step-up.duplicate': 'conflict',
  'step-up.unavailable': 'unavailable',
  'step-up.required': 'unauthenticated',
  'step-up.impersonated': 'forbidden',
}

/** Every deliberate failure of step-up issuing and of step-up stores. Messages never hold tokens. */
export class StepUpError extends PortcullisError {
  declare readonly code: StepUpErrorCode

  constructor(code: StepUpErrorCode, message: string, options: PortcullisErrorOptions = {}) {
    super(code, CLASS_OF[code], message, options)
  }
}

export function invalidStepUpInput(message: string): StepUpError {
  return new StepUpError(StepUpErrorCodes.invalidInput, message)
}
