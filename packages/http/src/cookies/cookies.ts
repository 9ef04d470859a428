import { createHash } from 'node:crypto'
import { type OptionsShape, readOptions } from '@portcullis/core/errors'
import {
  clearSessionCookie,
  readSessionCookie,
  type SessionCookie,
  type SessionCookieRead,
  serializeSessionCookie,
  sessionCookie,
} from '@portcullis/core/local-accounts'

/**
 * Where the OAuth routes' cookies may relax their rules. In production leave it empty: cookies are
 * `__Host-` prefixed, `Secure`, `HttpOnly`, `Path=/`, without `Domain`. `insecureLocalhostDevelopment`
 * drops `Secure` and the prefix so a browser keeps them over plain `http://localhost`; it is refused unless
 * `publicOrigin` is a loopback origin (the same rule as the session cookie).
 */
export interface OAuthCookieOptions {
  readonly publicOrigin?: string
  readonly insecureLocalhostDevelopment?: boolean
}

export const OAUTH_COOKIE_OPTIONS: OptionsShape<OAuthCookieOptions> = {
  publicOrigin: { kind: 'string', code: 'oauth.routes.cookie_invalid' },
  insecureLocalhostDevelopment: { kind: 'boolean', code: 'oauth.routes.cookie_invalid' },
}

/** The browser-binding cookie lives no longer than an OAuth transaction (10 minutes at most). */
const BINDING_MAX_AGE_SECONDS = 600

function prefixed(base: string, options: OAuthCookieOptions): string {
  return options.insecureLocalhostDevelopment === true ? base : `__Host-${base}`
}

function settings(
  name: string,
  sameSite: 'Lax' | 'Strict',
  options: OAuthCookieOptions,
  maxAgeSeconds: number,
): SessionCookie {
  return sessionCookie({
    name,
    sameSite,
    maxAgeSeconds,
    ...(options.publicOrigin === undefined ? {} : { publicOrigin: options.publicOrigin }),
    ...(options.insecureLocalhostDevelopment === undefined
      ? {}
      : { insecureLocalhostDevelopment: options.insecureLocalhostDevelopment }),
  })
}

/**
 * The browser-binding cookie of OAuth transactions: `SameSite=Lax` (the provider's redirect back is a
 * cross-site top-level GET, which must carry it), `HttpOnly`, `__Host-`. Its value is a secret that the
 * transaction store keeps only as an HMAC digest.
 */
export class OAuthBindingCookie {
  readonly name: string
  readonly #settings: SessionCookie

  constructor(options: OAuthCookieOptions = {}) {
    readOptions(options, 'oauthBindingCookie', OAUTH_COOKIE_OPTIONS)
    this.name = prefixed('portcullis-oauth', options)
    this.#settings = settings(this.name, 'Lax', options, BINDING_MAX_AGE_SECONDS)
  }

  /** The cookie's value; a malformed or duplicated cookie reads as absent (the service mints a fresh one). */
  read(header: string | undefined): string | undefined {
    const read = readSessionCookie(this.#settings, header)
    return read.kind === 'present' ? read.value : undefined
  }

  serialize(value: string): string {
    return serializeSessionCookie(this.#settings, value)
  }
}

/**
 * The short-lived step-up cookies a browser reauthentication sets: one per purpose (so a credential for
 * one purpose is never presented to, and burned by, a route of another), `SameSite=Strict` (never sent
 * on a cross-site request, so it cannot be ridden by a forged one), `HttpOnly`, `__Host-`, and with the
 * credential's remaining lifetime. The name is `__Host-portcullis-step-up-` plus 22 characters of the
 * SHA-256 of the purpose (purposes may hold `:`, which cookie names cannot).
 */
export class StepUpCookies {
  readonly #options: OAuthCookieOptions
  readonly #names = new Map<string, SessionCookie>()

  constructor(options: OAuthCookieOptions = {}) {
    readOptions(options, 'stepUpCookies', OAUTH_COOKIE_OPTIONS)
    this.#options = Object.freeze({ ...options })
    // Validates the settings once, at startup.
    settings(this.nameFor('startup-check'), 'Strict', this.#options, 60)
  }

  /** The cookie name carrying a credential of `purpose`. */
  nameFor(purpose: string): string {
    const digest = createHash('sha256').update(purpose, 'utf8').digest('base64url').slice(0, 22)
    return prefixed(`portcullis-step-up-${digest}`, this.#options)
  }

  /** The credential of `purpose` in a `Cookie` header: absent, present, or malformed (duplicated, odd). */
  read(header: string | undefined, purpose: string): SessionCookieRead {
    return readSessionCookie(this.#cookie(purpose), header)
  }

  /** `Set-Cookie` for a credential of `purpose` that expires at `expiresAt`. */
  serialize(purpose: string, token: string, expiresAt: Date, now = Date.now()): string {
    const seconds = Math.max(1, Math.min(900, Math.floor((expiresAt.getTime() - now) / 1000)))
    return serializeSessionCookie(settings(this.nameFor(purpose), 'Strict', this.#options, seconds), token)
  }

  /** `Set-Cookie` deleting the cookie of `purpose`. */
  clear(purpose: string): string {
    return clearSessionCookie(this.#cookie(purpose))
  }

  #cookie(purpose: string): SessionCookie {
    let cookie = this.#names.get(purpose)
    if (cookie === undefined) {
      cookie = settings(this.nameFor(purpose), 'Strict', this.#options, 60)
      // Purposes come from route guards and reauthentication policies: a small, fixed set.
      if (this.#names.size < 1024) this.#names.set(purpose, cookie)
    }
    return cookie
  }
}
