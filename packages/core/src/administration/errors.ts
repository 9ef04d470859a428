import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/** Stable codes of account administration (`AccountAdministration`). */
export const AdministrationErrorCodes = {
  /** A malformed argument (an account id, a key or grant id, a search); nothing was read or changed. 400. */
  invalidInput: 'administration.invalid_input',
  /** Every administrative change needs a reason: 1-200 characters without control characters. 400. */
  reasonRequired: 'administration.reason_required',
  /** No such account (or no such key or grant of this account). 404 over HTTP. */
  notFound: 'administration.not_found',
  /** An administrator cannot disable, sign out or delete their own account through administration. 409. */
  selfTarget: 'administration.self_target',
  /** The account has no verified address to send a reset to. 409. */
  noAddress: 'administration.no_address',
  /** The account has no password to reset (it signs in with provider identities or passkeys only). 409. */
  noPassword: 'administration.no_password',
  /** The capability is not configured (no API keys, grants or password reset given). 409. */
  notConfigured: 'administration.not_configured',
  /**
   * The change was made but its audit entry could not be written nor queued: the log is down. 503; the
   * request may be repeated (every act is idempotent) once the log is back.
   */
  auditUnavailable: 'administration.audit_unavailable',
  /** A store the operation needs could not answer; nothing was changed. 503. */
  unavailable: 'administration.unavailable',
} as const

export type AdministrationErrorCode = (typeof AdministrationErrorCodes)[keyof typeof AdministrationErrorCodes]

const CLASSES: Readonly<Record<AdministrationErrorCode, ErrorClass>> = {
  'administration.invalid_input': 'invalid-input',
  'administration.reason_required': 'invalid-input',
  // No "not found" class exists: the HTTP routes answer 404 for this code.
  'administration.not_found': 'conflict',
  'administration.self_target': 'conflict',
  'administration.no_address': 'conflict',
  'administration.no_password': 'conflict',
  'administration.not_configured': 'conflict',
  'administration.audit_unavailable': 'unavailable',
  'administration.unavailable': 'unavailable',
}

/** A refusal of an administrative operation. Messages never carry a reason, a credential or an address. */
export class AdministrationError extends PortcullisError {
  declare readonly code: AdministrationErrorCode

  constructor(code: AdministrationErrorCode, message: string, options: PortcullisErrorOptions = {}) {
    super(code, CLASSES[code], message, options)
  }
}
