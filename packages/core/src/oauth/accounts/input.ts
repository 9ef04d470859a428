import { invalidInput } from './errors.js'

/** A point in time given as a `Date` or an RFC 3339 string that names its offset (`Z` or `+hh:mm`). */
export type InstantInput = Date | string

const MAX_ID_LENGTH = 255
const MAX_ISSUER_LENGTH = 2048
const MAX_SCOPES = 256
const MAX_SCOPE_LENGTH = 256
/** RFC 6749 section 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/
/** RFC 3339 date-time; the offset is mandatory, so a timezone-less timestamp never parses. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/

function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index)
    if (code < 0x20 || code === 0x7f) return true
  }
  return false
}

/** A non-blank identifier without control characters, at most `max` characters. */
export function requireId(value: unknown, field: string, max = MAX_ID_LENGTH): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw invalidInput(`${field} must be a non-blank string`)
  if (value.length > max) throw invalidInput(`${field} must be at most ${max} characters`)
  if (hasControlCharacter(value)) throw invalidInput(`${field} must not contain control characters`)
  if (value.trim() !== value) throw invalidInput(`${field} must not have leading or trailing whitespace`)
  return value
}

export function requireIssuer(value: unknown): string {
  return requireId(value, 'issuer', MAX_ISSUER_LENGTH)
}

/** Validates scope tokens and returns them sorted and de-duplicated. */
export function requireScopes(value: unknown, field = 'scopes'): readonly string[] {
  if (!Array.isArray(value)) throw invalidInput(`${field} must be an array of scope tokens`)
  if (value.length > MAX_SCOPES) throw invalidInput(`${field} must hold at most ${MAX_SCOPES} scopes`)
  for (const scope of value) {
    if (typeof scope !== 'string' || scope.length > MAX_SCOPE_LENGTH || !SCOPE_TOKEN.test(scope)) {
      throw invalidInput(`${field} must contain only RFC 6749 scope tokens`)
    }
  }
  return Object.freeze([...new Set(value as string[])].sort())
}

/** A valid `Date`, or an RFC 3339 string with an explicit offset; anything else is a typed error. */
export function requireInstant(value: unknown, field: string): Date {
  if (value instanceof Date) {
    const time = value.getTime()
    if (Number.isNaN(time)) throw invalidInput(`${field} is an invalid date`)
    return new Date(time)
  }
  if (typeof value === 'string') {
    const match = RFC3339.exec(value)
    if (match === null) throw invalidInput(`${field} must be an RFC 3339 timestamp with a timezone offset`)
    const [, year, month, day, hour, minute, second] = match.map(Number)
    const parsed = Date.parse(value)
    const calendar = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1))
    if (
      Number.isNaN(parsed) ||
      calendar.getUTCMonth() !== (month ?? 1) - 1 ||
      calendar.getUTCDate() !== day ||
      (hour ?? 0) > 23 ||
      (minute ?? 0) > 59 ||
      (second ?? 0) > 59
    ) {
      throw invalidInput(`${field} is an invalid date`)
    }
    return new Date(parsed)
  }
  throw invalidInput(`${field} must be a Date or an RFC 3339 timestamp`)
}

export function requireOptionalInstant(value: unknown, field: string): Date | null {
  return value === undefined || value === null ? null : requireInstant(value, field)
}

/** A token-vault version: a positive safe integer. */
export function requireVersion(value: unknown, field = 'expectedVersion'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalidInput(`${field} must be a positive integer`)
  }
  return value
}

export function requireBoundedInteger(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidInput(`${field} must be an integer between ${min} and ${max}`)
  }
  return value
}
