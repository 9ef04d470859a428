import { ImpersonationError, ImpersonationErrorCodes } from './errors.js'

/** The administrator's signed-in session, from the request's verified authentication. */
export interface AdministratorSession {
  readonly accountId: string
  /** The epoch the administrator's session carries (the step-up credential is bound to it). */
  readonly securityEpoch: number
  /** The administrator's session handle (the step-up credential is bound to it). */
  readonly sessionHandle: string
  /** The administrator's session id (the cookie's value), handed back when the impersonation ends. */
  readonly sessionId: string
}

/** The longest reason kept. */
export const MAX_IMPERSONATION_REASON_LENGTH = 500
const MAX_ACCOUNT_ID_LENGTH = 255
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/

function bad(message: string): ImpersonationError {
  return new ImpersonationError(ImpersonationErrorCodes.invalidInput, message)
}

/** The target account id: 1-255 characters, no surrounding whitespace or control characters. */
export function requireTarget(value: unknown): string {
  if (
    typeof value !== 'string' ||
    value === '' ||
    value.length > MAX_ACCOUNT_ID_LENGTH ||
    value.trim() !== value ||
    CONTROL.test(value)
  ) {
    throw bad('accountId must be 1-255 characters without surrounding whitespace')
  }
  return value
}

/** The administrator's reason, trimmed: 1-500 characters, no control characters but line breaks and tabs. */
export function requireReason(value: unknown): string {
  const reason = typeof value === 'string' ? value.trim() : ''
  if (reason === '') throw bad('a reason is required')
  if (reason.length > MAX_IMPERSONATION_REASON_LENGTH) {
    throw bad(`the reason must be at most ${MAX_IMPERSONATION_REASON_LENGTH} characters`)
  }
  if (CONTROL.test(reason)) throw bad('the reason must not contain control characters')
  return reason.replace(/[\r\n\t]+/g, ' ')
}
