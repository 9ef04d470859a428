import { createHash } from 'node:crypto'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { OIDCErrorCodes } from '../../oidc/errors.js'
import {
  defaultHostResolver,
  type HostResolver,
  type OIDCFetch,
  OIDCRequestError,
  OutboundHttpClient,
} from '../../oidc/outbound-http.js'
import { LocalAuthError } from '../auth-errors.js'
import { DEFAULT_MIN_PASSWORD_LENGTH } from './password.js'
import {
  PASSWORD_ACCEPTED,
  type PasswordScreen,
  type PasswordScreenContext,
  type PasswordScreenVerdict,
  refusedByContext,
} from './password-screen.js'

/** The public range endpoint: the 5-hex prefix is appended. */
export const DEFAULT_RANGE_ENDPOINT = 'https://api.pwnedpasswords.com/range/'

/** Why a range lookup gave no answer (for `onUnavailable`; never carries the prefix or the password). */
export type RangeUnavailableReason = 'timeout' | 'network' | 'refused' | 'status' | 'malformed'

export interface RangePasswordScreenOptions {
  /** The range endpoint the prefix is appended to. Default `https://api.pwnedpasswords.com/range/`. */
  readonly endpoint?: string
  /** Refuse a password seen at least this many times. Default 1. */
  readonly minimumCount?: number
  /** Ask for a padded answer (`Add-Padding: true`), so its size does not tell the prefix. Default true. */
  readonly padding?: boolean
  /** Whole request, body included. Default 2000 ms. */
  readonly timeoutMs?: number
  /**
   * When the range service gives no answer: `fallback` (default) screens with `fallback` instead, so
   * sign-up keeps working and still refuses common passwords; `refuse` throws
   * `local.password_screen_unavailable` (503 with `Retry-After`), so no password is set unscreened.
   */
  readonly whenUnavailable?: 'fallback' | 'refuse'
  /**
   * The offline screen, run before the lookup and used alone when the service is unavailable: required
   * (`commonPasswordScreen()` of `@portcullis/password-blocklist`, or `blocklistPasswordScreen` over a
   * list of your own), so an outage never lets a common password through.
   */
  readonly fallback: PasswordScreen
  /** `Retry-After` of `local.password_screen_unavailable`. Default 5. */
  readonly retryAfterSeconds?: number
  /** Told of each lookup that gave no answer (count outages; it gets no prefix). */
  readonly onUnavailable?: (reason: RangeUnavailableReason) => void
  /** The outbound fetch (a proxy's, a test's). Default the global `fetch`. */
  readonly fetch?: OIDCFetch
  /** Resolves the endpoint's host before each request (the addresses are checked). Default `node:dns`. */
  readonly resolveHost?: HostResolver
  /** Allow `http:` and loopback addresses: tests and a mirror on the same host. Default false. */
  readonly allowLoopback?: boolean
  /** Allow private addresses: a mirror inside your network. Default false. */
  readonly allowPrivateAddresses?: boolean
  /** Minimum length kept once the username and addresses are taken out. Default 8. */
  readonly minRemainingLength?: number
}

const LINE = /^([0-9A-Fa-f]{35}):(\d{1,12})$/
const MAX_RANGE_BYTES = 1024 * 1024

class RangeUnavailable extends Error {
  constructor(readonly reason: RangeUnavailableReason) {
    super(`the password range service is unavailable (${reason})`)
  }
}

/** The upper-case SHA-1 of the UTF-8 password, split into the 5-hex prefix sent and the suffix kept. */
export function rangeParts(password: string): { readonly prefix: string; readonly suffix: string } {
  const digest = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase()
  return { prefix: digest.slice(0, 5), suffix: digest.slice(5) }
}

/**
 * Reads a range answer: `SUFFIX:COUNT` lines. Padding lines (count 0) are ignored; malformed lines are
 * skipped, and an answer with no well-formed line at all is treated as no answer. The count of `suffix`,
 * 0 when it is absent.
 */
export function countInRange(body: string, suffix: string): number {
  let wellFormed = 0
  let found = 0
  let lines = 0
  for (const raw of body.split('\n')) {
    const line = raw.trim()
    if (line === '') continue
    lines += 1
    const match = LINE.exec(line)
    if (match === null) continue
    wellFormed += 1
    const count = Number(match[2])
    if (count > 0 && (match[1] as string).toUpperCase() === suffix) found = Math.max(found, count)
  }
  if (lines > 0 && wellFormed === 0) throw new RangeUnavailable('malformed')
  return found
}

function positiveInteger(value: number | undefined, fallback: number, name: string, max: number): number {
  const chosen = value ?? fallback
  if (!Number.isInteger(chosen) || chosen < 1 || chosen > max) {
    throw new ConfigurationError('local.invalid_config', `${name} must be an integer from 1 to ${max}`)
  }
  return chosen
}

/**
 * The k-anonymity screen, in the format of the public "Pwned Passwords" range API: the password's SHA-1
 * is computed here, only its first five hex digits are sent (`GET {endpoint}{PREFIX}`), and the answer's
 * `SUFFIX:COUNT` lines are compared here. Neither the password nor its full hash leaves the process. The
 * request goes through the outbound HTTP client (scheme, port and address checks, no redirects, a time
 * bound and a body bound). The username and address rule and the offline `fallback` run first, so the
 * service is asked only about passwords the offline list let through.
 */
export function rangePasswordScreen(options: RangePasswordScreenOptions): PasswordScreen {
  const fallback = (options as Partial<RangePasswordScreenOptions> | undefined)?.fallback
  if (typeof fallback?.screen !== 'function') {
    throw new ConfigurationError(
      'local.invalid_config',
      'rangePasswordScreen needs fallback, the offline screen (commonPasswordScreen() of @portcullis/password-blocklist)',
    )
  }
  const endpoint = options.endpoint ?? DEFAULT_RANGE_ENDPOINT
  let parsed: URL
  try {
    parsed = new URL(endpoint)
  } catch {
    throw new ConfigurationError('local.invalid_config', 'the range endpoint must be an absolute URL')
  }
  if (parsed.search !== '' || parsed.hash !== '' || !endpoint.endsWith('/')) {
    throw new ConfigurationError(
      'local.invalid_config',
      'the range endpoint must end with / and have no query or fragment',
    )
  }
  const minimumCount = positiveInteger(options.minimumCount, 1, 'minimumCount', 1_000_000_000)
  const timeoutMs = positiveInteger(options.timeoutMs, 2000, 'timeoutMs', 60_000)
  const retryAfterSeconds = positiveInteger(options.retryAfterSeconds, 5, 'retryAfterSeconds', 3600)
  const minRemaining = positiveInteger(
    options.minRemainingLength,
    DEFAULT_MIN_PASSWORD_LENGTH,
    'minRemainingLength',
    4096,
  )
  const whenUnavailable = options.whenUnavailable ?? 'fallback'
  if (whenUnavailable !== 'fallback' && whenUnavailable !== 'refuse') {
    throw new ConfigurationError('local.invalid_config', 'whenUnavailable must be fallback or refuse')
  }
  const padding = options.padding ?? true
  const client = new OutboundHttpClient(
    {
      allowLoopback: options.allowLoopback ?? false,
      allowPrivateAddresses: options.allowPrivateAddresses ?? false,
      allowedPorts: new Set([443]),
      timeoutMs,
      maxResponseBytes: MAX_RANGE_BYTES,
      allowedOrigins: new Set([parsed.origin]),
    },
    options.fetch ?? ((url, init) => fetch(url, init)),
    options.resolveHost ?? defaultHostResolver,
  )

  async function lookup(prefix: string, suffix: string): Promise<number> {
    let response: Response
    try {
      response = await client.request(`${endpoint}${prefix}`, {
        method: 'GET',
        headers: padding ? { 'add-padding': 'true', accept: 'text/plain' } : { accept: 'text/plain' },
      })
    } catch (error) {
      const refused = error instanceof OIDCRequestError && error.code === OIDCErrorCodes.requestRefused
      const timedOut = error instanceof OIDCRequestError && error.reason === 'timeout'
      throw new RangeUnavailable(refused ? 'refused' : timedOut ? 'timeout' : 'network')
    }
    if (response.status !== 200) throw new RangeUnavailable('status')
    return countInRange(await response.text(), suffix)
  }

  return {
    async screen(password: string, context: PasswordScreenContext): Promise<PasswordScreenVerdict> {
      if (refusedByContext(password, context, minRemaining)) return { accepted: false, reason: 'context' }
      const offline = await fallback.screen(password, context)
      if (!offline.accepted) return offline
      const { prefix, suffix } = rangeParts(password)
      try {
        const count = await lookup(prefix, suffix)
        return count >= minimumCount ? { accepted: false, reason: 'breached' } : PASSWORD_ACCEPTED
      } catch (error) {
        if (!(error instanceof RangeUnavailable)) throw error
        options.onUnavailable?.(error.reason)
        if (whenUnavailable === 'fallback') return offline
        throw new LocalAuthError(
          'local.password_screen_unavailable',
          'the password range service is unavailable',
          { retryAfterSeconds },
        )
      }
    },
  }
}
