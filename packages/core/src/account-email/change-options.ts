import { integerBetween, type OptionRule } from '../errors/options.js'
import { DEFAULT_EMAIL_CHANGE_SETTINGS, type EmailChangeSettings } from './email-change.js'
import { DEFAULT_SIGN_IN_CODE_SETTINGS, type SignInCodeSettings } from './sign-in-code.js'

// The options of email change and sign-in by email code (`AccountEmail({ emailChange, signInCode })`).

export interface EmailChangeOptions {
  /** Minutes the code sent to the new address works, 10 to 1440. Default 60. */
  readonly codeMinutes?: number
  /** Days the undo link sent to the old address works, 1 to 30. Default 7. */
  readonly undoDays?: number
  /** The page that confirms a new address (POSTs `flow` and `code`). Default `/email/change/confirm`. */
  readonly confirmPage?: string
  /** The page that undoes a change (POSTs `flow` and `code`). Default `/email/change/undo`. */
  readonly undoPage?: string
}

export interface SignInCodeOptions {
  /** Turns sign-in by email code on. Default false. */
  readonly enabled?: boolean
  /** Minutes a code works, 5 to 15. Default 10. */
  readonly codeMinutes?: number
  /** The page the link opens (POSTs `flow` and `code`). Default `/sign-in/code`. */
  readonly page?: string
}

const CODE = 'account_email.invalid_config'
const path = (value: unknown) =>
  typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !/[?#\s]/.test(value)
    ? undefined
    : 'must be a path starting with one "/", without query or fragment'

export const EMAIL_CHANGE_OPTION: OptionRule & { readonly required?: false } = {
  kind: 'object',
  code: CODE,
  shape: {
    codeMinutes: { kind: 'number', check: integerBetween(10, 1440), code: CODE },
    undoDays: { kind: 'number', check: integerBetween(1, 30), code: CODE },
    confirmPage: { kind: 'string', check: path, code: CODE },
    undoPage: { kind: 'string', check: path, code: CODE },
  },
}

export const SIGN_IN_CODE_OPTION: OptionRule & { readonly required?: false } = {
  kind: 'object',
  code: CODE,
  shape: {
    enabled: { kind: 'boolean', code: CODE },
    codeMinutes: { kind: 'number', check: integerBetween(5, 15), code: CODE },
    page: { kind: 'string', check: path, code: CODE },
  },
}

export function emailChangeSettings(
  options: EmailChangeOptions | undefined,
  maxAttempts: number,
): EmailChangeSettings {
  const defaults = DEFAULT_EMAIL_CHANGE_SETTINGS
  return Object.freeze({
    codeMinutes: options?.codeMinutes ?? defaults.codeMinutes,
    undoDays: options?.undoDays ?? defaults.undoDays,
    maxAttempts,
    confirmPath: options?.confirmPage ?? defaults.confirmPath,
    undoPath: options?.undoPage ?? defaults.undoPath,
  })
}

export function signInCodeSettings(
  options: SignInCodeOptions | undefined,
  maxAttempts: number,
): SignInCodeSettings {
  const defaults = DEFAULT_SIGN_IN_CODE_SETTINGS
  return Object.freeze({
    enabled: options?.enabled ?? defaults.enabled,
    codeMinutes: options?.codeMinutes ?? defaults.codeMinutes,
    maxAttempts,
    path: options?.page ?? defaults.path,
  })
}
