import { ConfigurationError } from '../errors/index.js'

const MAX_NAME_LENGTH = 256
// Control characters (C0, DEL, C1) are never part of a grant name.
const CONTROL = /\p{Cc}/u

/** True for a non-empty, trimmed, bounded string without control characters. */
export function isGrantName(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_NAME_LENGTH &&
    value.trim() === value &&
    !CONTROL.test(value)
  )
}

/** Startup validation for names used in guards: non-blank, trimmed, no duplicates, at least one. */
export function configuredNames(code: string, what: string, values: readonly unknown[]): readonly string[] {
  if (values.length === 0) throw new ConfigurationError(code, `${what} needs at least one name`)
  const seen = new Set<string>()
  for (const value of values) {
    if (!isGrantName(value)) {
      throw new ConfigurationError(code, `${what} names must be non-blank trimmed strings`)
    }
    if (seen.has(value)) throw new ConfigurationError(code, `${what} lists "${value}" twice`)
    seen.add(value)
  }
  return Object.freeze([...seen])
}

/** Startup validation for a single name. */
export function configuredName(code: string, what: string, value: unknown): string {
  if (!isGrantName(value)) throw new ConfigurationError(code, `${what} must be a non-blank trimmed string`)
  return value
}
