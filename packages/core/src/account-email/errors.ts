import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/**
 * Stable codes of the account email flows (sign-up with verification, email verification, password
 * reset, email change, sign-in by code). Each flow adds its own codes here.
 */
export const AccountEmailErrorCodes = {
  /** A malformed request body or argument; nothing was written. 400. */
  invalidInput: 'account_email.invalid_input',
  /**
   * A wrong, expired, used or superseded code, an unknown flow, or a code of another purpose: one answer
   * for all of them (the attempt is counted against the code). 400.
   */
  invalidCode: 'account_email.invalid_code',
  /** Too many requests for this address or this client; `retryAfterSeconds` says when to retry. 429. */
  rateLimited: 'account_email.rate_limited',
  /** Another account verified this address first; this account's copy stays unverified. 409. */
  addressTaken: 'account_email.address_taken',
  /** Sign-up is closed (`LocalAccounts({ registration: 'closed' })`). 403. */
  signUpClosed: 'account_email.sign_up_closed',
  /**
   * The account has a second factor that this flow cannot check here (a passkey): sign in with it
   * instead. An email alone never takes over a protected account. 403.
   */
  secondFactorRequired: 'account_email.second_factor_required',
  /** The reset waiting for its second factor is unknown, expired or spent: start again. 400. */
  resetPending: 'account_email.reset_pending_invalid',
  /** A store (codes, outbox, accounts, rate limits) could not answer; nothing was changed. 503. */
  unavailable: 'account_email.unavailable',
  /** An email change to the address that is the primary already. 400. */
  sameAddress: 'account_email.same_address',
  /** The account holds the most addresses allowed (`MAX_EMAIL_ADDRESSES_PER_ACCOUNT`). 409. */
  tooManyAddresses: 'account_email.too_many_addresses',
  /** The account the flow acts on no longer exists. 401. */
  accountGone: 'account_email.account_gone',
  /** Sign-in by email code is not turned on (`AccountEmail({ signInCode: { enabled: true } })`). 403. */
  signInCodeDisabled: 'account_email.sign_in_code_disabled',
  /** The account holds this address already (adding it again). 409. */
  addressExists: 'account_email.address_exists',
  /** The signed-in account holds no such address. 400. */
  addressNotFound: 'account_email.address_not_found',
  /** A new verification code for an address that is verified already. 409. */
  addressVerified: 'account_email.address_verified',
  /** Only a verified address can be the primary one. 409. */
  addressUnverified: 'account_email.address_unverified',
  /** The primary address is removed last: make another address primary first. 409. */
  primaryAddress: 'account_email.primary_address',
  /** The address is the account's last way to sign in (its last verified one, signing in by address). 409. */
  lastSignInAddress: 'account_email.last_sign_in_address',
} as const

export type AccountEmailErrorCode = (typeof AccountEmailErrorCodes)[keyof typeof AccountEmailErrorCodes]

const CLASS_OF: Readonly<Record<AccountEmailErrorCode, ErrorClass>> = {
  'account_email.invalid_input': 'invalid-input',
  'account_email.invalid_code': 'invalid-input',
  'account_email.rate_limited': 'rate-limited',
  'account_email.address_taken': 'conflict',
  'account_email.sign_up_closed': 'forbidden',
  'account_email.second_factor_required': 'forbidden',
  'account_email.reset_pending_invalid': 'invalid-input',
  'account_email.unavailable': 'unavailable',
  'account_email.same_address': 'invalid-input',
  'account_email.too_many_addresses': 'conflict',
  'account_email.account_gone': 'unauthenticated',
  'account_email.sign_in_code_disabled': 'forbidden',
  'account_email.address_exists': 'conflict',
  'account_email.address_not_found': 'invalid-input',
  'account_email.address_verified': 'conflict',
  'account_email.address_unverified': 'conflict',
  'account_email.primary_address': 'conflict',
  'account_email.last_sign_in_address': 'conflict',
}

export interface AccountEmailErrorOptions extends PortcullisErrorOptions {
  /** For `account_email.rate_limited` (and an outage when known): seconds until a retry may work. */
  readonly retryAfterSeconds?: number
  /** A client-safe sentence the HTTP layer shows as the problem's detail. */
  readonly detail?: string
}

/**
 * Every deliberate failure of the account email flows. Messages and details never hold a code, an
 * address, a password or a token.
 */
export class AccountEmailError extends PortcullisError {
  declare readonly code: AccountEmailErrorCode
  declare readonly retryAfterSeconds?: number
  declare readonly detail?: string

  constructor(code: AccountEmailErrorCode, message: string, options: AccountEmailErrorOptions = {}) {
    super(code, CLASS_OF[code], message, options)
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds
    if (options.detail !== undefined) this.detail = options.detail
  }

  override toJSON(): ReturnType<PortcullisError['toJSON']> & { retryAfterSeconds?: number } {
    const json = super.toJSON()
    return this.retryAfterSeconds === undefined
      ? json
      : { ...json, retryAfterSeconds: this.retryAfterSeconds }
  }
}

export function invalidEmailFlowInput(message: string): AccountEmailError {
  return new AccountEmailError(AccountEmailErrorCodes.invalidInput, message, { detail: message })
}

export function invalidCode(): AccountEmailError {
  return new AccountEmailError(AccountEmailErrorCodes.invalidCode, 'the code is not valid', {
    detail: 'The code is wrong, expired or already used',
  })
}

/** Runs a store call; a failure that is not a deliberate Portcullis error becomes `account_email.unavailable`. */
export async function storeCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof PortcullisError && error.errorClass !== 'unavailable') throw error
    throw new AccountEmailError(AccountEmailErrorCodes.unavailable, 'a store of the email flows failed', {
      cause: error,
      retryAfterSeconds: 1,
    })
  }
}
