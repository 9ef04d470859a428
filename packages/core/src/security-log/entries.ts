import { createHmac, randomBytes } from 'node:crypto'
import type { SecurityEvent } from '../local-accounts/security-events.js'
import {
  SECURITY_LOG_LIMITS,
  type SecurityLogDetail,
  type SecurityLogDevice,
  type SecurityLogEntry,
  validateSecurityLogEntry,
} from './entry.js'
import { SecurityLogError, SecurityLogErrorCodes } from './errors.js'

/**
 * An event to log: a `SecurityEvent`, or one of the application's own with a dotted `type`
 * (`api_key.issued`) and the same field names (`accountId`, `reason`, `sessionHandle`, `clientAddress`,
 * `userAgent`, `actorId`).
 */
export type LoggableEvent =
  | SecurityEvent
  | { readonly type: string; readonly at: Date; readonly [field: string]: unknown }

/**
 * What the log keeps of a client address: `'address'` as seen, `'none'`, or a keyed hash (HMAC-SHA256
 * with a key of at least 32 bytes, versioned so a key can be replaced): equal addresses give equal
 * hashes under one key, and nobody without the key can tell which address it was.
 */
export type ClientAddressRecording =
  | 'address'
  | 'none'
  | { readonly hashKey: Uint8Array; readonly keyVersion?: number }

/** Turns a `User-Agent` header into a device (`describeUserAgent` of `@portcullis/http/user-agents`). */
export type UserAgentDescriber = (userAgent: string) => SecurityLogDevice | null

export interface SecurityLogEntryOptions {
  /** Default `'address'`. */
  readonly clientAddresses?: ClientAddressRecording
  /** Without one no device is recorded (the raw header never is). */
  readonly describeUserAgent?: UserAgentDescriber
  /** Field names of the application's own events to keep in `details`, beside the built-in ones. */
  readonly detailFields?: readonly string[]
  /** Default `node:crypto` `randomBytes`. */
  readonly randomBytes?: (size: number) => Uint8Array
}

/** The fields that have a column of their own. */
const COLUMNS = new Set([
  'type',
  'at',
  'accountId',
  'actorId',
  'reason',
  'sessionHandle',
  'clientAddress',
  'userAgent',
])

/**
 * The non-secret fields of today's events kept in `details`. Anything else an event carries is not
 * recorded: a field added to an event later stays out of the log until it is named here (or in
 * `detailFields`), so a secret can never slip in by accident.
 */
export const SECURITY_LOG_DETAIL_FIELDS: readonly string[] = Object.freeze([
  'retryAfterSeconds',
  'familyId',
  'epoch',
  'method',
  'purpose',
  'provider',
  'provisioned',
  'relinked',
  'pending',
  'sessions',
  'status',
  'stagedRevocations',
  'remaining',
  'credentialId',
  'ceremony',
  'storedCounter',
  'presentedCounter',
  'keyId',
  'replacementKeyId',
  'overlapSeconds',
  'grantId',
  'clientId',
  // `oauth.client_connected`: the name the consent page showed.
  'clientName',
  // `login.succeeded`: how the person signed in (RFC 8176 values, space-separated).
  'amr',
  'known',
  'signedIn',
  // impersonations: which one, and its bound
  'impersonationId',
  'expiresInSeconds',
  // `impersonation.refused`: what the impersonation was refused (`api_key.issue`)
  'act',
  // requests to join an organization: which organization and request, the role an approval gave
  'organizationId',
  'requestId',
  'role',
  // `security_log.dropped`: how many events the writer could not keep, since when.
  'dropped',
  'since',
])

const ID_BYTES = 16
const DEVICE_CACHE = 256
const USER_AGENT_MAX = 512

function invalidConfig(message: string): SecurityLogError {
  return new SecurityLogError(SecurityLogErrorCodes.invalidConfig, message)
}

const REASON = /^[a-z0-9_.-]{1,64}$/
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

/** A parser's answer cut to what an entry holds: short text without control characters, or null. */
function clampDevice(device: SecurityLogDevice): SecurityLogDevice | null {
  const clamp = (value: unknown): string | null => {
    if (typeof value !== 'string') return null
    const clean = value.replace(CONTROL, '').trim().slice(0, SECURITY_LOG_LIMITS.deviceFieldMax)
    return clean.length > 0 ? clean : null
  }
  const clamped = { browser: clamp(device.browser), os: clamp(device.os), platform: clamp(device.platform) }
  return clamped.browser === null && clamped.os === null && clamped.platform === null
    ? null
    : Object.freeze(clamped)
}

const optionalText = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 ? value : null

/** Builds log entries from events, with the options' address recording and device parsing. */
export class SecurityLogEntries {
  readonly #addresses: 'address' | 'none' | { readonly key: Buffer; readonly version: number }
  readonly #describe: UserAgentDescriber | undefined
  readonly #details: ReadonlySet<string>
  readonly #random: (size: number) => Uint8Array
  /** Parsed devices by header, most recently used last (a sign-in storm repeats a handful of headers). */
  readonly #devices = new Map<string, SecurityLogDevice | null>()

  constructor(options: SecurityLogEntryOptions = {}) {
    const recording = options.clientAddresses ?? 'address'
    if (recording === 'address' || recording === 'none') this.#addresses = recording
    else if (typeof recording === 'object' && recording !== null && recording.hashKey instanceof Uint8Array) {
      if (recording.hashKey.length < 32)
        throw invalidConfig('clientAddresses.hashKey must be at least 32 bytes')
      const version = recording.keyVersion ?? 1
      if (!Number.isSafeInteger(version) || version < 1 || version > 1_000_000) {
        throw invalidConfig('clientAddresses.keyVersion must be an integer 1-1000000')
      }
      this.#addresses = { key: Buffer.from(recording.hashKey), version }
    } else throw invalidConfig("clientAddresses must be 'address', 'none' or { hashKey }")
    if (options.describeUserAgent !== undefined && typeof options.describeUserAgent !== 'function') {
      throw invalidConfig('describeUserAgent must be a function')
    }
    this.#describe = options.describeUserAgent
    const extra = options.detailFields ?? []
    if (!Array.isArray(extra) || extra.some((name) => typeof name !== 'string' || COLUMNS.has(name))) {
      throw invalidConfig('detailFields must be field names other than the columns')
    }
    this.#details = new Set([...SECURITY_LOG_DETAIL_FIELDS, ...extra])
    this.#random = options.randomBytes ?? randomBytes
  }

  /** The entry for `event`, checked (`security_log.invalid_input` when the event cannot be one). */
  entryOf(event: LoggableEvent): SecurityLogEntry {
    const fields = event as Readonly<Record<string, unknown>>
    const details: Record<string, SecurityLogDetail> = {}
    for (const name of this.#details) {
      const value = fields[name]
      if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number')
        details[name] = value
    }
    let reason = optionalText(fields.reason)
    if (reason !== null && !REASON.test(reason)) {
      // A free-text reason is kept as a detail (bounded there), not as a reason code.
      details.reasonText = reason.slice(0, SECURITY_LOG_LIMITS.detailTextMax)
      reason = null
    }
    const address = optionalText(fields.clientAddress)
    // Bounded, so a hostile header costs the parser and the device cache no more than a real one.
    const userAgent = optionalText(fields.userAgent)?.slice(0, USER_AGENT_MAX) ?? null
    return validateSecurityLogEntry({
      id: this.#newId(),
      at: event.at,
      type: event.type,
      accountId: optionalText(fields.accountId),
      actorId: optionalText(fields.actorId),
      reason,
      sessionHandle: optionalText(fields.sessionHandle),
      clientAddress: address !== null && this.#addresses === 'address' ? address : null,
      clientAddressHash:
        address !== null && typeof this.#addresses === 'object' ? this.hashAddress(address) : null,
      device: userAgent === null ? null : this.#device(userAgent),
      details,
    })
  }

  /**
   * The keyed hash the log stores for `address` (to find a client's entries), or null when the log
   * keeps addresses as seen or not at all.
   */
  hashAddress(address: string): string | null {
    if (typeof this.#addresses !== 'object') return null
    const mac = createHmac('sha256', this.#addresses.key).update(address, 'utf8').digest('base64url')
    return `v${this.#addresses.version}.${mac}`
  }

  #newId(): string {
    const bytes = this.#random(ID_BYTES)
    if (!(bytes instanceof Uint8Array) || bytes.length !== ID_BYTES) {
      throw new SecurityLogError(SecurityLogErrorCodes.invalidConfig, 'randomBytes returned the wrong size')
    }
    return Buffer.from(bytes).toString('hex')
  }

  #device(userAgent: string): SecurityLogDevice | null {
    if (this.#describe === undefined) return null
    const cached = this.#devices.get(userAgent)
    if (cached !== undefined || this.#devices.has(userAgent)) {
      this.#devices.delete(userAgent)
      this.#devices.set(userAgent, cached ?? null)
      return cached ?? null
    }
    let device: SecurityLogDevice | null
    try {
      device = this.#describe(userAgent)
    } catch {
      // A parser that fails on a hostile header records no device; the entry itself is kept.
      device = null
    }
    device = device === null || typeof device !== 'object' ? null : clampDevice(device)
    this.#devices.set(userAgent, device)
    if (this.#devices.size > DEVICE_CACHE) this.#devices.delete(this.#devices.keys().next().value as string)
    return device
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'SecurityLogEntries {}'
  }
}
