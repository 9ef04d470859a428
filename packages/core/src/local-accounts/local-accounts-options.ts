import type { EmailAddressNormalization } from '../accounts/email-address.js'
import type { SignInIdentifier } from '../accounts/email-requests.js'
import type { AccountStore } from '../accounts/port.js'
import type { Instrumentation } from '../instrumentation/instrumentation.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import type { BoundedPasswordHasherOptions } from './passwords/bounded-password-hasher.js'
import type { PasswordHasher, PasswordRules } from './passwords/password.js'
import type { PasswordScreen } from './passwords/password-screen.js'
import type { SecurityNoticeSource } from './passwords/security-notices.js'
import type { RateLimitStore } from './rate-limits/rate-limit-store.js'
import type { SecondFactorGate } from './second-factor.js'
import type { SecurityEventSink, SecurityEventSinkErrorHandler } from './security-events.js'
import type { SessionCookieOptions } from './sessions/session-cookie.js'
import type { SessionStore } from './sessions/session-store.js'
import type { RefreshTokenStore } from './tokens/refresh-token-store.js'
import type { LocalSigningKeyRing } from './tokens/signing-key-ring.js'

/**
 * How signed-in callers carry their credential, chosen explicitly by the application:
 * - `session`: an opaque session id in a `__Host-` cookie (mechanism `session`), CSRF-protected;
 * - `tokens`: short-lived access JWTs plus rotating refresh tokens (mechanism `bearer`);
 * - `hybrid`: both, as two distinct mechanisms; each sign-in names the transport it wants.
 */
export type LocalAuthProfile = 'session' | 'tokens' | 'hybrid'

export type { LocalTransport } from './transport.js'

/** Who may create an account: anyone, holders of a single-use invite code, or nobody (admin-created). */
export type RegistrationPolicy = 'open' | 'invite-only' | 'closed'

export interface LocalSessionOptions {
  /** Cookie settings (`sessionCookie`); `publicOrigin` defaults to the service's `publicOrigin`. */
  readonly cookie?: SessionCookieOptions
  /** A session unused this long ends. Default 1800 (30 min); 60 s to 30 days. */
  readonly idleTimeoutSeconds?: number
  /** A session ends this long after sign-in whatever its use. Default 604800 (7 days); at most 400 days. */
  readonly absoluteTimeoutSeconds?: number
  /**
   * Sliding renewal: a request moves the idle expiry forward, writing to the store at most once per this
   * interval per session. Default 60; 1 s to the idle timeout.
   */
  readonly renewIntervalSeconds?: number
}

export interface LocalTokenOptions {
  readonly ring: LocalSigningKeyRing
  /** `iss` of the access tokens. */
  readonly issuer: string
  /** `aud` of the access tokens (this API). */
  readonly audience: string
  /** Where the application serves `jwks()`; pinned by the in-process verifier, fetched by nobody here. */
  readonly jwksUri: string
  /** Default 300 (5 min); at most the ring's `maxAccessTokenLifetimeSeconds`. */
  readonly accessTokenLifetimeSeconds?: number
  /** Lifetime of each refresh token (renewed at every rotation). Default 1209600 (14 days). */
  readonly refreshTokenLifetimeSeconds?: number
  /** No refresh token of a sign-in works past this. Default 2592000 (30 days); at least the above. */
  readonly refreshFamilyLifetimeSeconds?: number
  /** An `http://` JWKS URL on loopback (local development). Default false. */
  readonly allowInsecureLoopback?: boolean
  /**
   * Set when another mechanism also reads `Authorization: Bearer` (workload JWTs): tokens that are not
   * JWTs of this issuer are then `none` instead of `invalid`. Default false.
   */
  readonly shareBearerHeader?: boolean
  /** Verified access tokens kept (by SHA-256, never past `exp`) so repeats skip the signature. Default 10000; 0 turns it off. */
  readonly verifiedTokenCacheEntries?: number
}

export interface LoginRateLimit {
  /** Attempts per window. */
  readonly limit: number
  readonly windowSeconds: number
}

export interface LocalRateLimitOptions {
  /** Sign-in attempts per username, counted before any hashing. Default 10 per 900 s. */
  readonly perAccount?: LoginRateLimit
  /** Sign-in and registration attempts per client address. Default 100 per 900 s. */
  readonly perAddress?: LoginRateLimit
  /**
   * How many leading bits of an IPv6 client address name one client for `perAddress` (0 to 128). Default
   * 64: a home connection or a cloud host owns a whole /64, so counting each address apart would give it
   * 2^64 budgets. IPv4 addresses are counted one by one. See `clientRateLimitKey`.
   */
  readonly ipv6PrefixLength?: number
}

export interface LocalRevocationOptions {
  /**
   * Revocation notices shared by every instance (`PostgresRevocationNotices` over the stores' database, or
   * `MemoryRevocationNotices` with the memory stores). While they are trusted (the listener is up), a
   * revocation anywhere evicts the cached session or epoch on every instance within moments, so cached
   * entries are believed for `safetyTtlSeconds`; while they are not, `maxStalenessSeconds` applies.
   */
  readonly notices?: RevocationNotices
  /**
   * How long a cached session or security epoch is believed while the notices are trusted: a safety bound
   * only, since notices evict entries at once. Default 300; 1 to 3600.
   */
  readonly safetyTtlSeconds?: number
  /**
   * How old a cached session or security epoch may be before the store is read again when no notices are
   * trusted (none configured, or the listener is down): the longest time a revoked session, or a token of
   * an account whose epoch moved, still works on an instance that did not do the revoking. Default 5; 0
   * is strict mode (the store is read on every request while notices are not trusted); at most 60.
   */
  readonly maxStalenessSeconds?: number
  /** Sessions held by the per-instance lookup cache. Default 10000. */
  readonly maxCachedSessions?: number
  /** Security epochs held by the per-instance epoch cache. Default 10000. */
  readonly maxCachedAccounts?: number
}

export interface LocalAccountsOptions {
  readonly profile: LocalAuthProfile
  readonly accounts: AccountStore
  /** Needed by the `session` and `hybrid` profiles. */
  readonly sessions?: SessionStore
  /** Needed by the `tokens` and `hybrid` profiles. */
  readonly refreshTokens?: RefreshTokenStore
  /** Shared by every instance (a Postgres store behind several instances). */
  readonly rateLimits: RateLimitStore
  /** Wrapped in `boundedPasswordHasher(hasher, hashing)` unless it already is one. */
  readonly hasher: PasswordHasher
  /**
   * Limits of the hashing queue. Default: `concurrency` half the cores (at least 1), so hashing never
   * takes every core from the event loop; `maxQueued` 64 and `retryAfterSeconds` 1 as `boundedPasswordHasher`.
   */
  readonly hashing?: BoundedPasswordHasherOptions
  readonly passwordRules?: PasswordRules
  /**
   * Screens every new password (sign-up, change, reset, adding one) after `passwordRules` and before
   * hashing (NIST SP 800-63B-4 §3.1.1.2). Required, so no deployment runs unscreened by omission:
   * `commonPasswordScreen()` of `@portcullis/password-blocklist` refuses the common passwords and the
   * account's own name, offline; `rangePasswordScreen()` adds a breach-corpus lookup.
   */
  readonly passwordScreen: PasswordScreen
  /** Default `closed`. */
  readonly registration?: RegistrationPolicy
  /**
   * What the `username` member of a password sign-in may name: the account's username, one of its
   * verified email addresses, or either. Default `['username']`. An unverified address never signs
   * anyone in, and an unknown address gets the same answer, after the same work, as an unknown
   * username. With both, an identifier that is a verified address is that address's account even when
   * another account has it as its username. Pass the same list to `AccountStore.removeEmailAddress`
   * (`signInWith`), so an account never loses its last way in.
   */
  readonly signInWith?: readonly SignInIdentifier[]
  /** How addresses are normalized at sign-in (`normalizeEmailAddress`). Default: the local part keeps its case. */
  readonly emailAddresses?: EmailAddressNormalization
  /** This application's public origin (`https://app.example`): the CSRF target and the cookie's origin. */
  readonly publicOrigin: string
  /** Other origins allowed to send unsafe cookie-authenticated requests (a separate front end). */
  readonly trustedOrigins?: readonly string[]
  readonly session?: LocalSessionOptions
  /** Needed by the `tokens` and `hybrid` profiles. */
  readonly tokens?: LocalTokenOptions
  readonly rateLimit?: LocalRateLimitOptions
  readonly revocation?: LocalRevocationOptions
  /** Proxies whose `X-Forwarded-For` is believed (addresses and CIDR ranges). Default none: the direct peer. */
  readonly trustedProxies?: readonly string[]
  /**
   * A second factor for password sign-ins (`TotpSecondFactor` from `@portcullis/core/totp`): an account
   * that has one gets a `PendingSecondFactor` from `login`, not a session or tokens.
   */
  readonly secondFactor?: SecondFactorGate
  /** Receives security events; a failing sink never fails a request. */
  readonly events?: SecurityEventSink
  /**
   * Writes a security notification with a password change (and the administrator's reset) in the same
   * store transaction: pass the application's `SecurityNotifier` (`@portcullis/core/account-email`).
   */
  readonly securityNotices?: SecurityNoticeSource
  readonly onEventSinkError?: SecurityEventSinkErrorHandler
  /**
   * Counts sign-in attempts refused by a rate limit (`rateLimitHit('login.address' | 'login.account')`),
   * e.g. `openTelemetryInstrumentation()` from `@portcullis/opentelemetry`. Default: nothing recorded.
   */
  readonly instrumentation?: Instrumentation
  /** Mechanism names for route policy. Default `session` and `bearer`. */
  readonly mechanismNames?: { readonly session?: string; readonly bearer?: string }
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number
  /** Default `node:crypto` `randomBytes`; must return exactly `size` bytes. */
  readonly randomBytes?: (size: number) => Uint8Array
}
