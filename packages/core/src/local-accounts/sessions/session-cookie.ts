import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { invalidLocalInput } from '../errors.js'
import { parseIpAddress } from '../rate-limits/ip-address.js'

/** Options of `sessionCookie`. */
export interface SessionCookieOptions {
  /** Cookie name. Default `__Host-portcullis-session`; `portcullis-session` in insecure development. */
  readonly name?: string
  /** Default `Lax`, so top-level navigations from other sites still carry the session. */
  readonly sameSite?: 'Lax' | 'Strict'
  /** Persistent cookie lifetime; default none (the cookie ends with the browser session). Max 400 days. */
  readonly maxAgeSeconds?: number
  /** The application's public origin, e.g. `https://app.example`; required for insecure development. */
  readonly publicOrigin?: string
  /**
   * Drops `Secure` and the `__Host-` prefix so the cookie works over plain `http://localhost`. Refused
   * with `ConfigurationError` unless `publicOrigin` is a loopback host (localhost, 127.0.0.0/8, [::1]).
   */
  readonly insecureLocalhostDevelopment?: boolean
}

/** A validated session cookie configuration. It holds no secret; the cookie value is supplied per call. */
export interface SessionCookie {
  readonly name: string
  readonly httpOnly: true
  readonly secure: boolean
  readonly sameSite: 'Lax' | 'Strict'
  readonly path: '/'
  readonly maxAgeSeconds: number | undefined
}

/** The result of `readSessionCookie`. A malformed cookie of ours is reported, never treated as absent. */
export type SessionCookieRead =
  | { readonly kind: 'absent' }
  | { readonly kind: 'present'; readonly value: string }
  | { readonly kind: 'malformed' }

const OPTIONS: OptionsShape<SessionCookieOptions> = {
  name: { kind: 'string', code: 'local.invalid_cookie_config' },
  sameSite: { kind: 'string', code: 'local.invalid_cookie_config' },
  maxAgeSeconds: { kind: 'number', code: 'local.invalid_cookie_config' },
  publicOrigin: { kind: 'string', code: 'local.invalid_cookie_config' },
  insecureLocalhostDevelopment: { kind: 'boolean', code: 'local.invalid_cookie_config' },
}

const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,128}$/
/** Our values are opaque base64url tokens: 16 to 384 random bytes. */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{22,512}$/
const MAX_AGE_LIMIT = 400 * 86_400

function bad(message: string): never {
  throw new ConfigurationError('local.invalid_cookie_config', message)
}

/** Whether `origin` is an http(s) URL whose host is localhost, in 127.0.0.0/8 or ::1. */
function isLoopbackOrigin(origin: string): boolean {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  if (url.hostname === 'localhost') return true
  const address = parseIpAddress(url.hostname.replace(/^\[(.*)\]$/, '$1'))
  if (address === undefined) return false
  if (address.length === 4) return address[0] === 127
  return address.every((byte, index) => byte === (index === 15 ? 1 : 0))
}

/**
 * Validates the session cookie settings once, at startup: `HttpOnly`, `Path=/`, no `Domain`, `Secure` and
 * a `__Host-` name (so a sibling subdomain or plain-http response cannot plant or overwrite it), `SameSite`
 * Lax or Strict. Throws `ConfigurationError` (`local.invalid_cookie_config`) for a bad name, a secure
 * configuration whose name lacks `__Host-`, a non-https non-loopback `publicOrigin`, or insecure
 * development without a loopback `publicOrigin`.
 */
export function sessionCookie(options: SessionCookieOptions = {}): SessionCookie {
  readOptions(options, 'sessionCookie', OPTIONS)
  const insecure = options.insecureLocalhostDevelopment === true
  if (insecure && (options.publicOrigin === undefined || !isLoopbackOrigin(options.publicOrigin))) {
    bad('insecureLocalhostDevelopment needs a loopback publicOrigin (localhost, 127.0.0.0/8 or [::1])')
  }
  if (!insecure && options.publicOrigin !== undefined) {
    const https = URL.canParse(options.publicOrigin) && new URL(options.publicOrigin).protocol === 'https:'
    if (!https && !isLoopbackOrigin(options.publicOrigin)) bad('publicOrigin must be an https origin')
  }
  const name = options.name ?? (insecure ? 'portcullis-session' : '__Host-portcullis-session')
  if (typeof name !== 'string' || !COOKIE_NAME.test(name)) bad('cookie name must be an RFC 6265 token')
  const prefixed = /^__(host|secure)-/i.test(name)
  if (insecure && prefixed) bad('a __Host- or __Secure- cookie cannot be used without Secure')
  if (!insecure && !name.startsWith('__Host-')) bad('the session cookie name must start with __Host-')
  const sameSite = options.sameSite ?? 'Lax'
  if (sameSite !== 'Lax' && sameSite !== 'Strict') bad('sameSite must be Lax or Strict')
  const maxAge = options.maxAgeSeconds
  if (maxAge !== undefined && (!Number.isSafeInteger(maxAge) || maxAge < 1 || maxAge > MAX_AGE_LIMIT)) {
    bad('maxAgeSeconds must be an integer from 1 to 400 days')
  }
  return Object.freeze({
    name,
    httpOnly: true,
    secure: !insecure,
    sameSite,
    path: '/',
    maxAgeSeconds: maxAge,
  })
}

function attributes(cookie: SessionCookie): string {
  // A hand-built `SessionCookie` must not smuggle attributes or a second cookie into the header.
  const maxAge = cookie.maxAgeSeconds
  if (
    typeof cookie.name !== 'string' ||
    !COOKIE_NAME.test(cookie.name) ||
    (cookie.sameSite !== 'Lax' && cookie.sameSite !== 'Strict') ||
    (maxAge !== undefined && (!Number.isSafeInteger(maxAge) || maxAge < 1 || maxAge > MAX_AGE_LIMIT))
  ) {
    throw invalidLocalInput('session cookie settings must come from sessionCookie()')
  }
  return `Path=/; HttpOnly${cookie.secure ? '; Secure' : ''}; SameSite=${cookie.sameSite}`
}

/**
 * The `Set-Cookie` header value carrying `value` (an opaque token from `newOpaqueToken`). Throws
 * `LocalAccountError` `local.invalid_input` when the value is not such a token; the message never holds it.
 */
export function serializeSessionCookie(cookie: SessionCookie, value: string): string {
  if (typeof value !== 'string' || !COOKIE_VALUE.test(value)) {
    throw invalidLocalInput('session cookie value must be an opaque base64url token')
  }
  const rest = attributes(cookie)
  const maxAge = cookie.maxAgeSeconds === undefined ? '' : `; Max-Age=${cookie.maxAgeSeconds}`
  return `${cookie.name}=${value}; ${rest}${maxAge}`
}

/** The `Set-Cookie` value that deletes the session cookie (empty value, `Max-Age=0`, past `Expires`). */
export function clearSessionCookie(cookie: SessionCookie): string {
  return `${cookie.name}=; ${attributes(cookie)}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`
}

/**
 * Strips RFC 6265 whitespace (SP and HTAB) only. `String.prototype.trim` also strips NBSP, U+2000-U+200A,
 * BOM, VT and FF: a cookie planted as `\u00a0__Host-...` by a sibling subdomain (its name does not start
 * with `__Host-`, so the browser lets it be set) would then be read as ours.
 */
function trimOws(text: string, start: boolean, end: boolean): string {
  let from = 0
  let to = text.length
  while (start && from < to && (text.charCodeAt(from) === 0x20 || text.charCodeAt(from) === 0x09)) from++
  while (end && to > from && (text.charCodeAt(to - 1) === 0x20 || text.charCodeAt(to - 1) === 0x09)) to--
  return text.slice(from, to)
}

/**
 * Finds the session cookie in the `Cookie` header (one string, or one per header line). Other cookies are
 * ignored whatever they look like. Ours is `malformed` when its value is not an opaque base64url token
 * (quoted, empty, odd characters, wrong length), when it appears without `=`, or when it appears more than
 * once (a planted duplicate must not let the browser's ordering pick the session).
 */
export function readSessionCookie(
  cookie: SessionCookie,
  header: string | readonly string[] | undefined,
): SessionCookieRead {
  if (header === undefined) return { kind: 'absent' }
  const lines = typeof header === 'string' ? [header] : header
  let found: string | undefined
  for (const line of lines) {
    if (typeof line !== 'string') continue
    for (const piece of line.split(';')) {
      const pair = trimOws(piece, true, true)
      const equals = pair.indexOf('=')
      const name = equals === -1 ? pair : trimOws(pair.slice(0, equals), false, true)
      if (name !== cookie.name) continue
      if (equals === -1 || found !== undefined) return { kind: 'malformed' }
      found = trimOws(pair.slice(equals + 1), true, false)
    }
  }
  if (found === undefined) return { kind: 'absent' }
  return COOKIE_VALUE.test(found) ? { kind: 'present', value: found } : { kind: 'malformed' }
}
