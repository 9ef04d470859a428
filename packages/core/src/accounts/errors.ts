import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/**
 * Stable codes of account operations (`AccountService`), and their classes:
 * - `account.final_method` (conflict, 409): removing the account's last way to sign in is refused;
 * - `account.password_exists` (conflict, 409): adding a password to an account that has one;
 * - `account.password_missing` (conflict, 409): a password operation on an account without a password;
 * - `account.disabled` (forbidden, 403): the account is disabled and cannot sign in;
 * - `account.not_found` (unauthenticated, 401): the signed-in account no longer exists;
 * - `account.deletion_raced` (unavailable, 503): provider tokens kept arriving while the account was
 *   being deleted; nothing was deleted and the request may be retried with a new step-up credential;
 * - `account.last_owner` (conflict, 409): the account is the only owner of an organization that has
 *   other members; nothing was deleted (hand ownership over, or delete the organization, first).
 */
export const AccountErrorCodes = {
  finalMethod: 'account.final_method',
  passwordExists: 'account.password_exists',
  passwordMissing: 'account.password_missing',
  disabled: 'account.disabled',
  notFound: 'account.not_found',
  deletionRaced: 'account.deletion_raced',
  lastOwner: 'account.last_owner',
} as const

export type AccountErrorCode = (typeof AccountErrorCodes)[keyof typeof AccountErrorCodes]

const CLASSES: Readonly<Record<AccountErrorCode, ErrorClass>> = {
  'account.final_method': 'conflict',
  'account.password_exists': 'conflict',
  'account.password_missing': 'conflict',
  'account.disabled': 'forbidden',
  'account.not_found': 'unauthenticated',
  'account.deletion_raced': 'unavailable',
  'account.last_owner': 'conflict',
}

/** A refusal of an account operation. Messages never carry a password, token or username. */
export class AccountError extends PortcullisError {
  declare readonly code: AccountErrorCode

  constructor(code: AccountErrorCode, message: string, options: PortcullisErrorOptions = {}) {
    super(code, CLASSES[code], message, options)
  }
}
