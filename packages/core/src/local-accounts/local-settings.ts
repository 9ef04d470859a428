import type { EmailAddressNormalization } from '../accounts/email-address.js'
import type { SignInIdentifier } from '../accounts/email-requests.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { LocalAccountsOptions, LoginRateLimit, RegistrationPolicy } from './local-accounts-options.js'
import { DAY, LOCAL_OPTIONS_CODE, MINUTE } from './local-accounts-shape.js'
import { DEFAULT_IPV6_PREFIX_LENGTH } from './rate-limits/rate-limit-key.js'

/** The settings after defaults, in milliseconds where they are durations. */
export interface LocalSettings {
  readonly idleMs: number
  readonly absoluteMs: number
  readonly renewMs: number
  readonly accessTokenSeconds: number
  readonly refreshTokenMs: number
  readonly refreshFamilyMs: number
  readonly perAccount: LoginRateLimit
  readonly perAddress: LoginRateLimit
  /** The IPv6 prefix length per-address limits count a client by. */
  readonly ipv6PrefixLength: number
  readonly stalenessMs: number
  /** How long a cached entry is believed while revocation notices are trusted. */
  readonly trustedTtlMs: number
  readonly maxCachedSessions: number
  readonly maxCachedAccounts: number
  readonly registration: RegistrationPolicy
  /** What a password sign-in accepts: usernames, verified addresses, or both (never empty). */
  readonly signInWith: readonly SignInIdentifier[]
  readonly emailNormalization: EmailAddressNormalization
}

function bad(message: string): never {
  throw new ConfigurationError(LOCAL_OPTIONS_CODE, message)
}

/** Defaults and the rules that relate several options; `readOptions` has checked each one already. */
export function localSettings(options: LocalAccountsOptions): LocalSettings {
  const { profile } = options
  const usesSessions = profile !== 'tokens'
  const usesTokens = profile !== 'session'
  if (usesSessions && options.sessions === undefined) bad(`the ${profile} profile needs a sessions store`)
  if (usesTokens && (options.refreshTokens === undefined || options.tokens === undefined)) {
    bad(`the ${profile} profile needs tokens options and a refreshTokens store`)
  }
  const session = options.session ?? {}
  const idle = session.idleTimeoutSeconds ?? 30 * MINUTE
  const absolute = session.absoluteTimeoutSeconds ?? 7 * DAY
  const renew = session.renewIntervalSeconds ?? Math.min(MINUTE, idle)
  if (idle > absolute) bad('session.idleTimeoutSeconds must not exceed absoluteTimeoutSeconds')
  if (renew > idle) bad('session.renewIntervalSeconds must not exceed idleTimeoutSeconds')
  const tokens = options.tokens
  const accessTokenSeconds = tokens?.accessTokenLifetimeSeconds ?? 300
  if (tokens !== undefined && accessTokenSeconds > tokens.ring.maxAccessTokenLifetimeSeconds) {
    bad("tokens.accessTokenLifetimeSeconds exceeds the ring's maxAccessTokenLifetimeSeconds")
  }
  const refreshToken = tokens?.refreshTokenLifetimeSeconds ?? 14 * DAY
  const refreshFamily = tokens?.refreshFamilyLifetimeSeconds ?? Math.max(30 * DAY, refreshToken)
  if (refreshToken > refreshFamily) {
    bad('tokens.refreshTokenLifetimeSeconds must not exceed refreshFamilyLifetimeSeconds')
  }
  const revocation = options.revocation ?? {}
  const signInWith = options.signInWith ?? ['username']
  if (signInWith.length === 0) bad('signInWith must name username, email or both')
  return Object.freeze({
    idleMs: idle * 1000,
    absoluteMs: absolute * 1000,
    renewMs: renew * 1000,
    accessTokenSeconds,
    refreshTokenMs: refreshToken * 1000,
    refreshFamilyMs: refreshFamily * 1000,
    perAccount: options.rateLimit?.perAccount ?? { limit: 10, windowSeconds: 900 },
    perAddress: options.rateLimit?.perAddress ?? { limit: 100, windowSeconds: 900 },
    ipv6PrefixLength: options.rateLimit?.ipv6PrefixLength ?? DEFAULT_IPV6_PREFIX_LENGTH,
    stalenessMs: (revocation.maxStalenessSeconds ?? 5) * 1000,
    trustedTtlMs: (revocation.safetyTtlSeconds ?? 300) * 1000,
    maxCachedSessions: revocation.maxCachedSessions ?? 10_000,
    maxCachedAccounts: revocation.maxCachedAccounts ?? 10_000,
    registration: options.registration ?? 'closed',
    signInWith: Object.freeze([...new Set(signInWith)]),
    emailNormalization: Object.freeze({
      foldLocalPartCase: options.emailAddresses?.foldLocalPartCase === true,
    }),
  })
}
