import {
  type ErrorClass,
  PortcullisError,
  type PortcullisErrorOptions,
} from '../../errors/portcullis-error.js'

/**
 * The OAuth transaction cannot be used: unknown, expired, already consumed, bound to another browser,
 * session or operation, or the request that tried to start it was not allowed. 401 class. The message is
 * deliberately the same for every consume failure so it does not say which check failed.
 */
export class OAuthTransactionInvalidError extends PortcullisError {
  constructor(
    code = 'oauth.transaction.invalid',
    message = 'OAuth transaction is invalid or expired',
    options: PortcullisErrorOptions = {},
  ) {
    super(code, 'unauthenticated', message, options)
  }
}

/** Randomness, the protector or the store failed; the caller may retry later. 503 class. */
export class OAuthTransactionUnavailableError extends PortcullisError {
  constructor(options: PortcullisErrorOptions = {}) {
    super('oauth.transaction.unavailable', 'unavailable', 'OAuth transaction storage is unavailable', options)
  }
}

/** A store refused a write (duplicate key, full); the service reports it as unavailable. */
export class OAuthTransactionStoreError extends PortcullisError {
  constructor(code: string, errorClass: ErrorClass, message: string, options: PortcullisErrorOptions = {}) {
    super(code, errorClass, message, options)
  }
}
