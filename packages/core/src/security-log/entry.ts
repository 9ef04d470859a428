import { invalidSecurityLogInput, SecurityLogError, SecurityLogErrorCodes } from './errors.js'

/** The device a request came from, parsed from its `User-Agent` (never the raw header). */
export interface SecurityLogDevice {
  /** `Chrome 131`, `Firefox 133`, `Safari 18`. */
  readonly browser: string | null
  /** `Windows 10`, `macOS 14.6`, `Android 15`, `iOS 18.1`. */
  readonly os: string | null
  /** `desktop`, `mobile`, `tablet`, `tv`, `bot`. */
  readonly platform: string | null
}

/** A detail value: short text, a finite number or a flag. */
export type SecurityLogDetail = string | number | boolean

/**
 * One durable record of a security event. It holds identifiers and reason codes only: an account id, the
 * session *handle* (never the session id or cookie), the client address or a keyed hash of it, a parsed
 * device, and the event's other non-secret fields in `details`. Never a password, token, digest or key.
 */
export interface SecurityLogEntry {
  /**
   * Random, 16-64 of `0-9 a-z` (lower case, so every database collation orders ids as the code does);
   * appending the same entry twice stores it once.
   */
  readonly id: string
  readonly at: Date
  /** `login.succeeded`, `session.revoked`, or the application's own (`api_key.issued`). */
  readonly type: string
  /** The account it concerns, or null (a failed sign-in of an unknown name, a back-channel logout). */
  readonly accountId: string | null
  /** Who acted when it was not the account itself (an administrator, an impersonator), or null. */
  readonly actorId: string | null
  /** The event's reason code (`bad_password`, `logout`, `epoch_bumped`), or null. */
  readonly reason: string | null
  readonly sessionHandle: string | null
  /** The client address as seen (when the log keeps addresses), or null. */
  readonly clientAddress: string | null
  /** `v<key version>.<HMAC-SHA256 of the address, base64url>` (when the log keeps keyed hashes), or null. */
  readonly clientAddressHash: string | null
  readonly device: SecurityLogDevice | null
  /** The event's other fields (`provider`, `purpose`, `credentialId`, `retryAfterSeconds`, ...). */
  readonly details: Readonly<Record<string, SecurityLogDetail>>
}

export const SECURITY_LOG_LIMITS = Object.freeze({
  idMin: 16,
  idMax: 64,
  typeMax: 64,
  identifierMax: 255,
  reasonMax: 64,
  addressMax: 64,
  addressHashMax: 96,
  deviceFieldMax: 64,
  detailKeys: 16,
  detailKeyMax: 40,
  detailTextMax: 200,
  pageMax: 200,
  sweepMax: 10_000,
})

const ID = /^[0-9a-z]+$/
const TYPE = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/
const REASON = /^[a-z0-9_.-]+$/
const DETAIL_KEY = /^[a-zA-Z][a-zA-Z0-9_]*$/
// C0 and C1 controls, DEL, and the Unicode line and paragraph separators: nothing that breaks a log line.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

/** A valid instant (a `Date` whose time is a number). */
export function requireSecurityLogDate(value: unknown, name: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw invalidSecurityLogInput(`${name} must be a valid Date`)
  }
  return new Date(value.getTime())
}

function text(value: unknown, name: string, max: number, nullable: boolean): string | null {
  if (value === null || value === undefined) {
    if (nullable) return null
    throw invalidSecurityLogInput(`${name} is required`)
  }
  if (typeof value !== 'string' || value.length === 0 || value.length > max || CONTROL.test(value)) {
    throw invalidSecurityLogInput(`${name} must be 1-${max} characters without control characters`)
  }
  return value
}

function matching(
  value: unknown,
  name: string,
  pattern: RegExp,
  max: number,
  nullable: boolean,
): string | null {
  const checked = text(value, name, max, nullable)
  if (checked !== null && !pattern.test(checked)) throw invalidSecurityLogInput(`${name} is malformed`)
  return checked
}

function device(value: unknown): SecurityLogDevice | null {
  if (value === null || value === undefined) return null
  if (typeof value !== 'object') throw invalidSecurityLogInput('device must be an object or null')
  const raw = value as Record<string, unknown>
  const max = SECURITY_LOG_LIMITS.deviceFieldMax
  const parsed = {
    browser: text(raw.browser, 'device.browser', max, true),
    os: text(raw.os, 'device.os', max, true),
    platform: text(raw.platform, 'device.platform', max, true),
  }
  if (parsed.browser === null && parsed.os === null && parsed.platform === null) return null
  return Object.freeze(parsed)
}

function details(value: unknown): Readonly<Record<string, SecurityLogDetail>> {
  if (value === null || value === undefined) return Object.freeze({})
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidSecurityLogInput('details must be an object')
  const entries = Object.entries(value as Record<string, unknown>)
  if (entries.length > SECURITY_LOG_LIMITS.detailKeys) {
    throw invalidSecurityLogInput(`details hold at most ${SECURITY_LOG_LIMITS.detailKeys} fields`)
  }
  const copy: Record<string, SecurityLogDetail> = {}
  for (const [key, detail] of entries) {
    if (key.length > SECURITY_LOG_LIMITS.detailKeyMax || !DETAIL_KEY.test(key)) {
      throw invalidSecurityLogInput('a details key is malformed')
    }
    if (typeof detail === 'boolean') copy[key] = detail
    else if (typeof detail === 'number' && Number.isFinite(detail)) copy[key] = detail
    else if (typeof detail === 'string') {
      copy[key] = text(detail, `details.${key}`, SECURITY_LOG_LIMITS.detailTextMax, false) as string
    } else throw invalidSecurityLogInput(`details.${key} must be text, a finite number or a flag`)
  }
  return Object.freeze(copy)
}

/** A frozen, checked copy of `entry`; anything malformed is `security_log.invalid_input`. */
export function validateSecurityLogEntry(entry: SecurityLogEntry): SecurityLogEntry {
  if (typeof entry !== 'object' || entry === null) throw invalidSecurityLogInput('an entry must be an object')
  const L = SECURITY_LOG_LIMITS
  const id = matching(entry.id, 'id', ID, L.idMax, false) as string
  if (id.length < L.idMin) throw invalidSecurityLogInput(`id must be ${L.idMin}-${L.idMax} characters`)
  return Object.freeze({
    id,
    at: requireSecurityLogDate(entry.at, 'at'),
    type: matching(entry.type, 'type', TYPE, L.typeMax, false) as string,
    accountId: text(entry.accountId, 'accountId', L.identifierMax, true),
    actorId: text(entry.actorId, 'actorId', L.identifierMax, true),
    reason: matching(entry.reason, 'reason', REASON, L.reasonMax, true),
    sessionHandle: text(entry.sessionHandle, 'sessionHandle', L.identifierMax, true),
    clientAddress: text(entry.clientAddress, 'clientAddress', L.addressMax, true),
    clientAddressHash: text(entry.clientAddressHash, 'clientAddressHash', L.addressHashMax, true),
    device: device(entry.device),
    details: details(entry.details),
  })
}

/** The position after `entry` in newest-first order: its instant and id. */
export interface SecurityLogPosition {
  readonly at: Date
  readonly id: string
}

const CURSOR = /^([0-9a-z]{1,11})\.([0-9a-z]{16,64})$/

/** The opaque cursor of the page that follows `entry` (entries older than it, newest first). */
export function encodeSecurityLogCursor(entry: SecurityLogPosition): string {
  return `${entry.at.getTime().toString(36)}.${entry.id}`
}

/** The position a cursor names; anything this log did not hand out is `security_log.invalid_cursor`. */
export function decodeSecurityLogCursor(cursor: unknown): SecurityLogPosition {
  const match = typeof cursor === 'string' ? CURSOR.exec(cursor) : null
  const time = match === null ? Number.NaN : Number.parseInt(match[1] as string, 36)
  if (match === null || !Number.isSafeInteger(time) || time > 8.64e15) {
    throw new SecurityLogError(SecurityLogErrorCodes.invalidCursor, 'the cursor is malformed')
  }
  return { at: new Date(time), id: match[2] as string }
}

/** Compares in newest-first order (later instant first; on a tie, the greater id): negative when `a` comes first. */
export function newerFirst(a: SecurityLogPosition, b: SecurityLogPosition): number {
  const byTime = b.at.getTime() - a.at.getTime()
  if (byTime !== 0) return byTime
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}
