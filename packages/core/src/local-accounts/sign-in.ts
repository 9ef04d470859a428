import type { Impersonator } from '../authentication/principal.js'
import type { LocalTransport } from './local-accounts-options.js'
import type { ProviderSession } from './provider-session.js'

/**
 * A session sign-in: the session id goes into the cookie (`setCookie`) and nowhere else. `util.inspect`
 * and `JSON.stringify` of this object show neither the id nor the cookie.
 */
export interface SessionSignIn {
  readonly transport: 'session'
  readonly accountId: string
  /** The opaque session id (>= 128 bits). A credential: never log it. */
  readonly sessionId: string
  /** The session's public handle (for listing and revoking sessions, and in security events). */
  readonly handle: string
  /** The `Set-Cookie` header value carrying the session id. */
  readonly setCookie: string
  /** The synchronizer token for clients that send neither Fetch Metadata nor Origin. */
  readonly csrfToken: string
  /** The absolute expiry (the idle expiry moves with use). */
  readonly expiresAt: Date
}

/**
 * A token sign-in with the RFC 6749 member names of the token response (`access_token`, ...), plus the
 * refresh token family id (`familyId`, not secret). Inspect and JSON forms hide both tokens.
 */
export interface TokenSignIn {
  readonly transport: 'tokens'
  readonly accountId: string
  readonly familyId: string
  readonly access_token: string
  readonly refresh_token: string
  readonly token_type: 'Bearer'
  /** Seconds until the access token expires. */
  readonly expires_in: number
  /** When the refresh token expires. */
  readonly refreshExpiresAt: Date
}

export type LocalSignIn = SessionSignIn | TokenSignIn

/** What a caller of `establishLocalSignIn` knows about the request (for the session and events). */
export interface LocalRequestInfo {
  /** The direct TCP peer (`socket.remoteAddress`). */
  readonly peerAddress?: string | undefined
  /** Every `X-Forwarded-For` header line (believed only behind `trustedProxies`). */
  readonly forwardedFor?: string | readonly string[] | undefined
  /** The `User-Agent` header, stored (truncated) with a session. */
  readonly userAgent?: string | undefined
  /**
   * The acting principal's `impersonator`, when the request comes from an impersonation session: the
   * events of what it does to the account's sessions name the administrator (`actorId`) and the
   * impersonation (`impersonationId`).
   */
  readonly impersonator?: Impersonator | undefined
}

/** The input of `establishLocalSignIn`: an account already authenticated some other way (OAuth sign-in). */
export interface EstablishSignInRequest {
  readonly accountId: string
  /** Required in the `hybrid` profile; defaults to the profile's only transport otherwise. */
  readonly transport?: LocalTransport
  /** The session id the request already carries, if any: replaced in the same transaction (no fixation). */
  readonly replacesSessionId?: string | undefined
  readonly request?: LocalRequestInfo
  /**
   * The identity-provider session this sign-in comes from (pass the OAuth sign-in's `identity`): the
   * session's handle then carries tags of its subject and `sid`, so an OIDC back-channel logout of that
   * provider session ends it (`LocalAccounts.revokeProviderSessions`).
   */
  readonly providerSession?: ProviderSession | undefined
  /**
   * How the account authenticated (RFC 8176 values, e.g. `['hwk', 'user']` for a passkey), carried by the
   * access tokens the sign-in issues. Default none.
   */
  readonly amr?: readonly string[] | undefined
}

const HIDDEN = '[redacted]'

/** Freezes a sign-in whose `toJSON` and `util.inspect` forms replace its secret members with `[redacted]`. */
export function redactedSignIn<T extends LocalSignIn>(value: T, secrets: readonly (keyof T & string)[]): T {
  const visible = () => {
    const copy: Record<string, unknown> = { ...value }
    for (const key of secrets) copy[key] = HIDDEN
    return copy
  }
  Object.defineProperties(value, {
    toJSON: { value: visible, enumerable: false },
    [Symbol.for('nodejs.util.inspect.custom')]: {
      value: (_depth: number, options: object, inspect: (value: unknown, options: object) => string) =>
        `${value.transport === 'session' ? 'SessionSignIn' : 'TokenSignIn'} ${inspect(visible(), options)}`,
      enumerable: false,
    },
  })
  return Object.freeze(value)
}

/**
 * How the caller asks for a sign-in (`login`, `completeSecondFactor`): the transport (required in the
 * hybrid profile; for the second step, a pending sign-in of the other transport is refused and spent),
 * the session id the browser came with (replaced, so no fixation), and the request.
 */
export interface SignInOptions {
  readonly transport?: LocalTransport
  readonly replacesSessionId?: string | undefined
  readonly request?: LocalRequestInfo
}
