import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/** Stable codes of impersonation. */
export const ImpersonationErrorCodes = {
  /** A missing or blank reason, a malformed account id, or an administrator naming themselves. 400. */
  invalidInput: 'impersonation.invalid_input',
  /** The caller does not hold the capability that starts an impersonation. 403. */
  forbidden: 'impersonation.forbidden',
  /** The target is an administrator and the caller lacks the capability that allows that. 403. */
  targetIsAdministrator: 'impersonation.target_is_administrator',
  /** The caller is impersonating already: an impersonation never starts another one. 403. */
  nested: 'impersonation.nested',
  /** No active account with this id (unknown, disabled, or refused by the authorization resolver). 404. */
  targetNotFound: 'impersonation.target_not_found',
  /**
   * An impersonation asked for something that would outlive it or reach beyond the account (an API
   * key, an app connection, an invitation, a join-request approval): never done during one. 403.
   */
  refused: 'impersonation.refused',
  /** Ending asked of a request that is not an impersonation. 409. */
  notImpersonating: 'impersonation.not_impersonating',
  /** The authorization resolver, the session store or the protector failed. 503. */
  unavailable: 'impersonation.unavailable',
} as const

export type ImpersonationErrorCode = (typeof ImpersonationErrorCodes)[keyof typeof ImpersonationErrorCodes]

const CLASS_OF: Readonly<Record<ImpersonationErrorCode, ErrorClass>> = {
  'impersonation.invalid_input': 'invalid-input',
  'impersonation.forbidden': 'forbidden',
  'impersonation.target_is_administrator': 'forbidden',
  'impersonation.nested': 'forbidden',
  // the HTTP layer answers 404; core has no "not found" class
  'impersonation.target_not_found': 'invalid-input',
  'impersonation.refused': 'forbidden',
  'impersonation.not_impersonating': 'conflict',
  'impersonation.unavailable': 'unavailable',
}

/** Every deliberate failure of impersonation. Messages never hold a session id, a token or a reason. */
export class ImpersonationError extends PortcullisError {
  declare readonly code: ImpersonationErrorCode

  constructor(code: ImpersonationErrorCode, message: string, options: PortcullisErrorOptions = {}) {
    super(code, CLASS_OF[code], message, options)
  }
}
