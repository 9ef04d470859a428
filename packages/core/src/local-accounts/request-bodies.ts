import { invalidRequest } from './auth-errors.js'

// Readers of the request bodies the local-account routes take. Adapters parse the bytes (JSON or a form)
// into a plain object and hand it here: every reader refuses a non-object, unknown members, missing
// members and wrong types with `local.invalid_request` before anything is read from or written to a
// store. Lengths are bounded here too; password and username rules are applied by the service.

/** The longest string member accepted before the specific rules run (passwords have their own limit). */
const MAX_MEMBER_LENGTH = 8192

type Shape = Readonly<Record<string, 'required' | 'optional'>>

function readBody(body: unknown, shape: Shape): Readonly<Record<string, string | undefined>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('the body must be a JSON object or a form')
  }
  const record = body as Readonly<Record<string, unknown>>
  for (const key of Object.keys(record)) {
    if (!Object.hasOwn(shape, key)) {
      throw invalidRequest(/^[A-Za-z_]{1,32}$/.test(key) ? `unknown member ${key}` : 'unknown member')
    }
  }
  const result: Record<string, string | undefined> = {}
  for (const [key, presence] of Object.entries(shape)) {
    const value = record[key]
    if (value === undefined) {
      if (presence === 'required') throw invalidRequest(`${key} is required`)
      continue
    }
    if (typeof value !== 'string') throw invalidRequest(`${key} must be a string`)
    if (value.length > MAX_MEMBER_LENGTH) throw invalidRequest(`${key} is too long`)
    result[key] = value
  }
  return result
}

/** `{ username, password }` (sign-in). */
export function readCredentials(body: unknown): { readonly username: string; readonly password: string } {
  const fields = readBody(body, { username: 'required', password: 'required' })
  return { username: fields.username as string, password: fields.password as string }
}

/** `{ username, password, inviteCode? }` (registration). */
export function readRegistration(body: unknown): {
  readonly username: string
  readonly password: string
  readonly inviteCode: string | undefined
} {
  const fields = readBody(body, { username: 'required', password: 'required', inviteCode: 'optional' })
  return {
    username: fields.username as string,
    password: fields.password as string,
    inviteCode: fields.inviteCode,
  }
}

/** `{ currentPassword, newPassword }`. */
export function readPasswordChange(body: unknown): {
  readonly currentPassword: string
  readonly newPassword: string
} {
  const fields = readBody(body, { currentPassword: 'required', newPassword: 'required' })
  return { currentPassword: fields.currentPassword as string, newPassword: fields.newPassword as string }
}

/** `{ refresh_token }` (RFC 6749 section 6 names; `grant_type`, when sent, must be `refresh_token`). */
export function readRefresh(body: unknown): { readonly refreshToken: string } {
  const fields = readBody(body, { refresh_token: 'required', grant_type: 'optional' })
  if (fields.grant_type !== undefined && fields.grant_type !== 'refresh_token') {
    throw invalidRequest('grant_type must be refresh_token')
  }
  return { refreshToken: fields.refresh_token as string }
}

/** `{ token, token_type_hint? }` (RFC 7009). The hint is only checked for being a string. */
export function readRevocation(body: unknown): { readonly token: string } {
  const fields = readBody(body, { token: 'required', token_type_hint: 'optional' })
  return { token: fields.token as string }
}

/** `{ all? }` of sign-out: `all` is a boolean (or the form strings `true` / `false`). */
export function readLogout(body: unknown): { readonly all: boolean } {
  if (body === undefined) return { all: false }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('the body must be a JSON object or a form')
  }
  const record = body as Readonly<Record<string, unknown>>
  for (const key of Object.keys(record)) {
    if (key !== 'all')
      throw invalidRequest(/^[A-Za-z_]{1,32}$/.test(key) ? `unknown member ${key}` : 'unknown member')
  }
  const all = record.all
  if (all === undefined || all === false || all === 'false') return { all: false }
  if (all === true || all === 'true') return { all: true }
  throw invalidRequest('all must be a boolean')
}

/**
 * `{ pendingToken, code }` or `{ pendingToken, recoveryCode }`: the second step of a password sign-in,
 * with exactly one of the two.
 */
export function readSecondFactor(body: unknown): {
  readonly pendingToken: string
  readonly code: string | undefined
  readonly recoveryCode: string | undefined
} {
  const fields = readBody(body, { pendingToken: 'required', code: 'optional', recoveryCode: 'optional' })
  if ((fields.code === undefined) === (fields.recoveryCode === undefined)) {
    throw invalidRequest('exactly one of code and recoveryCode is required')
  }
  return {
    pendingToken: fields.pendingToken as string,
    code: fields.code,
    recoveryCode: fields.recoveryCode,
  }
}
