import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/** Stable codes of the security log (`SecurityLogError.code`). */
export const SecurityLogErrorCodes = {
  /** An entry, a page request or a sweep request is malformed (blank or overlong field, bad date, bad limit). */
  invalidInput: 'security_log.invalid_input',
  /** A cursor that this log did not hand out, or one altered since. */
  invalidCursor: 'security_log.invalid_cursor',
  /** The writer's options are wrong (queue bounds, key length, interval). */
  invalidConfig: 'security_log.invalid_config',
  /** The writer was closed; nothing more is accepted. */
  closed: 'security_log.closed',
} as const

export type SecurityLogErrorCode = (typeof SecurityLogErrorCodes)[keyof typeof SecurityLogErrorCodes]

const CLASS_OF: Record<SecurityLogErrorCode, ErrorClass> = {
  'security_log.invalid_input': 'invalid-input',
  'security_log.invalid_cursor': 'invalid-input',
  'security_log.invalid_config': 'configuration',
  'security_log.closed': 'unavailable',
}

/** The security log's typed error: every refusal of a `SecurityLog` or its writer carries one of the codes above. */
export class SecurityLogError extends PortcullisError {
  declare readonly code: SecurityLogErrorCode

  constructor(code: SecurityLogErrorCode, message: string, options: PortcullisErrorOptions = {}) {
    super(code, CLASS_OF[code], message, options)
  }
}

export function invalidSecurityLogInput(message: string): SecurityLogError {
  return new SecurityLogError(SecurityLogErrorCodes.invalidInput, message)
}
