import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { LocalAccountError } from '../errors.js'

/**
 * Why an unsafe request was refused (stable, for logs and security events):
 * - `csrf.cross_site`: `Sec-Fetch-Site` is `cross-site` or `same-site` and the Origin is not trusted;
 * - `csrf.origin_mismatch`: `Sec-Fetch-Site: same-origin` with an Origin other than the target's;
 * - `csrf.foreign_origin`: no usable Fetch Metadata and an Origin that is neither the target nor trusted
 *   (including the opaque `null` origin and a malformed Origin);
 * - `csrf.token_missing`: no Fetch Metadata, no Origin, and no synchronizer token presented (or expected);
 * - `csrf.token_mismatch`: the presented synchronizer token is not the expected one.
 */
export type CsrfRefusalReason =
  | 'csrf.cross_site'
  | 'csrf.origin_mismatch'
  | 'csrf.foreign_origin'
  | 'csrf.token_missing'
  | 'csrf.token_mismatch'

/** The outcome of `checkCsrf`. */
export type CsrfDecision = { readonly ok: true } | { readonly ok: false; readonly reason: CsrfRefusalReason }

/** What `checkCsrf` looks at; header values as received, `undefined` when absent. */
export interface CsrfCheckInput {
  /** The request method; GET, HEAD, OPTIONS and TRACE are safe and always pass. */
  readonly method: string
  /** The `Sec-Fetch-Site` header. */
  readonly secFetchSite?: string | undefined
  /** The `Origin` header. */
  readonly origin?: string | undefined
  /** This application's public origin, e.g. `https://app.example` (the request's own origin). */
  readonly targetOrigin: string
  /** Other origins allowed to send unsafe requests (a separate front end). Default none. */
  readonly trustedOrigins?: readonly string[]
  /** The synchronizer token the request carries (header or form field). */
  readonly presentedToken?: string | undefined
  /** The token expected for this session, `csrfTokenForSession(sessionId)`. */
  readonly expectedToken?: string | undefined
}

const MAX_TOKEN_LENGTH = 512
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])
const OK: CsrfDecision = Object.freeze({ ok: true })
const refuse = (reason: CsrfRefusalReason): CsrfDecision => ({ ok: false, reason })

/**
 * Serialized origin of a configured value (`scheme://host[:port]`, lower case, default port dropped; a
 * trailing `/` is tolerated), or `undefined` when it is not an http(s) URL.
 */
function originOf(value: string): string | undefined {
  if (value.length > 2048) return undefined
  try {
    const url = new URL(value)
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined
    return url.origin
  } catch {
    return undefined
  }
}

/**
 * ASCII-only case folding. `toLowerCase`/`toUpperCase` also fold look-alikes into ASCII (the Kelvin sign
 * U+212A lower-cases to `k`, dotless U+0131 and long U+017F upper-case to `I` and `S`), which would let
 * `https://\u212Aiosk.example` count as `https://kiosk.example` and `OPT\u0131ONS` as a safe method.
 */
const asciiLower = (value: string): string => value.replace(/[A-Z]/g, (char) => char.toLowerCase())
const asciiUpper = (value: string): string => value.replace(/[a-z]/g, (char) => char.toUpperCase())

/** An `Origin` header must be exactly a serialized origin; `null`, paths and garbage give `null`. */
function headerOrigin(value: string): string | null {
  const origin = originOf(value)
  return origin !== undefined && origin === asciiLower(value) ? origin : null
}

function isTrusted(origin: string, trusted: readonly string[] | undefined): boolean {
  return trusted?.some((candidate) => originOf(candidate) === origin) ?? false
}

/**
 * The CSRF decision for one request, pure and synchronous:
 * 1. safe methods pass;
 * 2. `Sec-Fetch-Site: same-origin` passes when the Origin, if sent, is the target origin or the literal
 *    `null` (browsers send `Origin: null` for same-origin form posts under `Referrer-Policy: no-referrer`;
 *    an opaque or cross-site initiator never gets `same-origin`, so Fetch Metadata decides);
 *    `cross-site` / `same-site` pass only with an Origin in `trustedOrigins` (a sibling subdomain is not
 *    trusted by being same-site);
 * 3. otherwise (no Fetch Metadata, or `none` / an unknown value), an Origin equal to the target or trusted
 *    passes and any other Origin (`null` included) is refused;
 * 4. with neither header, the synchronizer token must equal the expected one (constant-time compare).
 * An `Origin` header must be exactly a serialized origin; anything else counts as a foreign origin.
 * Throws `ConfigurationError` when `targetOrigin` is not an http(s) origin.
 * Browsers never let scripts set `Sec-Fetch-*` or `Origin`, so the headers are trustworthy for the browser
 * requests CSRF is about; a non-browser client forging them gains nothing it could not do directly.
 */
export function checkCsrf(input: CsrfCheckInput): CsrfDecision {
  if (SAFE_METHODS.has(asciiUpper(input.method))) return OK
  const target = originOf(input.targetOrigin)
  if (target === undefined) {
    throw new ConfigurationError('local.invalid_config', 'targetOrigin must be an http(s) origin')
  }
  const origin = input.origin === undefined ? undefined : headerOrigin(input.origin)
  const site = input.secFetchSite?.trim().toLowerCase()

  if (site === 'same-origin') {
    return origin === undefined || input.origin === 'null' || (origin !== null && origin === target)
      ? OK
      : refuse('csrf.origin_mismatch')
  }
  if (site === 'same-site' || site === 'cross-site') {
    return origin !== undefined && origin !== null && isTrusted(origin, input.trustedOrigins)
      ? OK
      : refuse('csrf.cross_site')
  }
  if (origin !== undefined) {
    if (origin !== null && (origin === target || isTrusted(origin, input.trustedOrigins))) return OK
    return refuse('csrf.foreign_origin')
  }
  const { presentedToken, expectedToken } = input
  if (!presentedToken || !expectedToken) return refuse('csrf.token_missing')
  if (presentedToken.length > MAX_TOKEN_LENGTH) return refuse('csrf.token_mismatch')
  return sameToken(presentedToken, expectedToken) ? OK : refuse('csrf.token_mismatch')
}

/** Constant-time equality that does not leak the length either (both sides are hashed first). */
function sameToken(presented: string, expected: string): boolean {
  const left = createHash('sha256').update(presented, 'utf8').digest()
  const right = createHash('sha256').update(expected, 'utf8').digest()
  return timingSafeEqual(left, right)
}

const TOKEN_LABEL = 'portcullis-csrf-v1'

/**
 * The synchronizer token of a session: base64url(HMAC-SHA256(key = session id, "portcullis-csrf-v1")).
 * Nothing extra is stored, the token changes with the session, and it reveals nothing about the session id
 * (HMAC is one-way in its key). Render it into forms or a readable header for clients without Fetch Metadata.
 */
export function csrfTokenForSession(sessionId: string): string {
  if (typeof sessionId !== 'string' || sessionId.length === 0) {
    throw new LocalAccountError('local.invalid_input', 'session id must be a non-empty string')
  }
  return createHmac('sha256', sessionId).update(TOKEN_LABEL, 'utf8').digest('base64url')
}

/**
 * The request was refused by the CSRF check (`local.csrf_refused`, class `forbidden`: 403). `reason` is a
 * stable refusal code; neither it nor the message carry tokens or header values.
 */
export class CsrfRefusedError extends LocalAccountError {
  /** The refusal reason from `checkCsrf`. */
  readonly reason: CsrfRefusalReason

  constructor(reason: CsrfRefusalReason) {
    super('local.csrf_refused', 'cross-site request refused')
    this.reason = reason
  }
}

/** `checkCsrf` that throws `CsrfRefusedError` instead of returning a refusal. */
export function assertCsrf(input: CsrfCheckInput): void {
  const decision = checkCsrf(input)
  if (!decision.ok) throw new CsrfRefusedError(decision.reason)
}
