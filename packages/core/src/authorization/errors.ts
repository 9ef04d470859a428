import { PortcullisError, type PortcullisErrorOptions } from '../errors/index.js'

/**
 * Malformed authorization data supplied at run time, e.g. a resolver answering a snapshot with a blank
 * role. The evaluator treats it as a server-side fault (503), never as a grant.
 */
export class AuthorizationDataError extends PortcullisError {
  constructor(code: string, message: string, options: PortcullisErrorOptions = {}) {
    super(code, 'invalid-input', message, options)
  }
}
