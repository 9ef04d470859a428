import type { Impersonator } from '../../authentication/principal.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { newOpaqueToken } from '../opaque-token.js'
import { defined, type LocalRuntime } from '../runtime.js'
import { type CsrfDecision, type CsrfRefusalReason, checkCsrf, csrfTokenForSession } from './csrf.js'
import { readSessionCookie, type SessionCookie } from './session-cookie.js'
import { CSRF_TOKEN_HEADER } from './session-mechanism.js'

/** A pre-session CSRF seed: a cookie for clients that sign in without Fetch Metadata or Origin. */
export interface CsrfSeed {
  /** The `Set-Cookie` value of the seed cookie. */
  readonly setCookie: string
  /** The synchronizer token to send back in `x-csrf-token`. */
  readonly csrfToken: string
}

/** The input of `LocalCsrf.check`: header values as received. */
export interface LocalCsrfInput {
  readonly method: string
  readonly secFetchSite?: string | undefined
  readonly origin?: string | undefined
  /** The `x-csrf-token` header. */
  readonly presentedToken?: string | undefined
  /** The session id (or pre-session seed) cookie value the expected token derives from. */
  readonly sessionId?: string | undefined
  readonly accountId?: string | undefined
  readonly clientAddress?: string | undefined
  /** The request's impersonation, when the caller knows it: the refusal names the administrator. */
  readonly impersonator?: Impersonator | undefined
}

/** The session a presented session id names: its account and handle (never the id), or null. */
export type CsrfSessionLookup = (
  sessionId: string,
) => Promise<{ readonly accountId: string; readonly handle: string } | null>

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])
const SEED_MAX_AGE_SECONDS = 7200
const SEED_BYTES = 32
/** Refusals whose session is being looked up at once; past it a refusal is told without its account. */
const MAX_PENDING_LOOKUPS = 64
/** How long a refusal waits for its session's read before it is told without the account. */
const LOOKUP_TIMEOUT_MS = 2000

/**
 * CSRF protection of cookie-authenticated requests (`checkCsrf` with the service's origins), the
 * synchronizer token of a session, and the pre-session seed cookie that gives a sign-in request without
 * Fetch Metadata or Origin a token to present. The seed is an opaque random value in its own `__Host-`
 * cookie (`HttpOnly`, two hours); it authenticates nothing.
 */
export class LocalCsrf {
  /** The request header carrying the synchronizer token. */
  readonly header = CSRF_TOKEN_HEADER
  /** The seed cookie (undefined in the tokens profile, which sets no cookies). */
  readonly seedCookie: SessionCookie | undefined
  readonly #sessionCookie: SessionCookie | undefined
  readonly #publicOrigin: string
  readonly #trustedOrigins: readonly string[]
  readonly #runtime: LocalRuntime
  readonly #sessionOf: CsrfSessionLookup | undefined
  #pendingLookups = 0

  constructor(options: {
    readonly publicOrigin: string
    readonly trustedOrigins: readonly string[]
    readonly sessionCookie: SessionCookie | undefined
    readonly runtime: LocalRuntime
    /** Names the account and session of a refused request's cookie (read only: nothing is renewed). */
    readonly sessionOf?: CsrfSessionLookup
  }) {
    // Refuses a public origin that is not an http(s) origin, now rather than at the first request.
    checkCsrf({ method: 'POST', targetOrigin: options.publicOrigin })
    for (const origin of options.trustedOrigins) {
      if (!URL.canParse(origin) || !['http:', 'https:'].includes(new URL(origin).protocol)) {
        throw new ConfigurationError('local.invalid_config', 'trustedOrigins must be http(s) origins')
      }
    }
    this.#publicOrigin = options.publicOrigin
    this.#trustedOrigins = Object.freeze([...options.trustedOrigins])
    this.#runtime = options.runtime
    this.#sessionOf = options.sessionOf
    const cookie = options.sessionCookie
    this.#sessionCookie = cookie
    this.seedCookie =
      cookie === undefined
        ? undefined
        : Object.freeze({
            ...cookie,
            name: cookie.name.startsWith('__Host-') ? '__Host-portcullis-csrf' : 'portcullis-csrf',
            maxAgeSeconds: SEED_MAX_AGE_SECONDS,
          })
  }

  /**
   * The decision for a request carrying a cookie: safe methods pass; then same-origin Fetch Metadata, the
   * target or a trusted `Origin`, or (with neither) the synchronizer token of `sessionId`. A refusal emits
   * `csrf.refused` (with the reason, never a header value). When the caller does not name the account and
   * the request carries a session id, the refusal names the session's account and handle (so the events
   * of an impersonation session name the administrator): the session is read off the request path, and
   * the event follows the read (without them when the read fails or too many are under way).
   */
  check(input: LocalCsrfInput): CsrfDecision {
    if (SAFE_METHODS.has(input.method.toUpperCase())) return { ok: true }
    const expectedToken =
      input.origin === undefined && input.sessionId !== undefined
        ? csrfTokenForSession(input.sessionId)
        : undefined
    const decision = checkCsrf({
      method: input.method,
      secFetchSite: input.secFetchSite,
      origin: input.origin,
      targetOrigin: this.#publicOrigin,
      trustedOrigins: this.#trustedOrigins,
      presentedToken: input.presentedToken,
      expectedToken,
    })
    if (!decision.ok) this.#refused(input, decision.reason)
    return decision
  }

  #refused(input: LocalCsrfInput, reason: CsrfRefusalReason): void {
    const { impersonator } = input
    const fields = {
      reason,
      method: input.method.toUpperCase().slice(0, 16),
      accountId: input.accountId,
      clientAddress: input.clientAddress,
      actorId: impersonator?.accountId,
      impersonationId: impersonator?.impersonationId,
    }
    const lookup = this.#sessionOf
    const sessionId = input.sessionId
    if (
      input.accountId !== undefined ||
      lookup === undefined ||
      sessionId === undefined ||
      this.#pendingLookups >= MAX_PENDING_LOOKUPS
    ) {
      this.#runtime.emit('csrf.refused', defined(fields))
      return
    }
    this.#pendingLookups += 1
    let told = false
    // Told once: with the session when the read answers in time, without it otherwise.
    const emit = (session: { readonly accountId: string; readonly handle: string } | null) => {
      if (told) return
      told = true
      clearTimeout(timer)
      this.#pendingLookups -= 1
      this.#runtime.emit(
        'csrf.refused',
        defined(
          session === null
            ? fields
            : { ...fields, accountId: session.accountId, sessionHandle: session.handle },
        ),
      )
    }
    // A store that never answers does not hold the event back for ever.
    const timer = setTimeout(() => emit(null), LOOKUP_TIMEOUT_MS)
    timer.unref?.()
    let read: Promise<{ readonly accountId: string; readonly handle: string } | null>
    try {
      read = lookup(sessionId)
    } catch {
      emit(null)
      return
    }
    Promise.resolve(read).then(
      (session) => emit(session ?? null),
      () => emit(null),
    )
  }

  /** The synchronizer token of a session id (or seed). */
  token(sessionId: string): string {
    return csrfTokenForSession(sessionId)
  }

  /** The session id in a `Cookie` header, or undefined (absent, or malformed or duplicated). */
  sessionIdFrom(cookieHeader: string | readonly string[] | undefined): string | undefined {
    return this.#read(this.#sessionCookie, cookieHeader)
  }

  /** The seed in a `Cookie` header, or undefined. */
  seedFrom(cookieHeader: string | readonly string[] | undefined): string | undefined {
    return this.#read(this.seedCookie, cookieHeader)
  }

  /** What the synchronizer token of a request derives from: its session id, else its seed. */
  anchorFrom(cookieHeader: string | readonly string[] | undefined): string | undefined {
    return this.sessionIdFrom(cookieHeader) ?? this.seedFrom(cookieHeader)
  }

  /** A fresh seed cookie and its token. */
  newSeed(): CsrfSeed {
    const cookie = this.seedCookie
    if (cookie === undefined) {
      throw new ConfigurationError('local.invalid_config', 'the tokens profile sets no cookies')
    }
    const seed = newOpaqueToken(SEED_BYTES, this.#runtime.random)
    const secure = cookie.secure ? '; Secure' : ''
    const setCookie = `${cookie.name}=${seed}; Path=/; HttpOnly${secure}; SameSite=${cookie.sameSite}; Max-Age=${SEED_MAX_AGE_SECONDS}`
    return Object.freeze({ setCookie, csrfToken: csrfTokenForSession(seed) })
  }

  #read(
    cookie: SessionCookie | undefined,
    header: string | readonly string[] | undefined,
  ): string | undefined {
    if (cookie === undefined) return undefined
    const read = readSessionCookie(cookie, header)
    return read.kind === 'present' ? read.value : undefined
  }
}
