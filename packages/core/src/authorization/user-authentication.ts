import type { AuthenticationEvidence } from '../authentication/index.js'
import { ConfigurationError, integerBetween, type OptionsShape, readOptions } from '../errors/index.js'
import type { GuardContext } from './context.js'
import { denied, GRANTED, type Guard, type GuardDecision } from './guard.js'

/**
 * Evidence attribute carrying the authentication context class reference (`acr` claim) of a verified
 * credential. Mechanisms that verify tokens with an `acr` claim (workload JWTs, access tokens) set it.
 */
export const ACR_ATTRIBUTE = 'acr'
/** Evidence attribute carrying the `auth_time` claim (seconds since the epoch) of a verified credential. */
export const AUTH_TIME_ATTRIBUTE = 'authTime'

const INVALID = 'authorization.invalid_guard'
// acr values travel space-separated inside a quoted-string (RFC 9470): visible ASCII, no quote or backslash.
const ACR_VALUE = /^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/

export interface AcrAtLeastOptions {
  /** Every acr value the application knows, weakest first: `minimum` and the values after it grant. */
  readonly levels: readonly string[]
}

const ACR_OPTIONS: OptionsShape<AcrAtLeastOptions> = {
  levels: { required: true, kind: 'array', elements: { kind: 'string' }, code: INVALID },
}

export interface AuthenticatedWithinOptions {
  /** Tolerance for clock differences with the token issuer, 0..300 s. Default 10. */
  readonly skewSeconds?: number
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number
}

const WITHIN_OPTIONS: OptionsShape<AuthenticatedWithinOptions> = {
  skewSeconds: { kind: 'number', check: integerBetween(0, 300), code: INVALID },
  clock: { kind: 'function', code: INVALID },
}

function someEvidence(
  evidence: readonly AuthenticationEvidence[],
  test: (value: string | number | boolean) => boolean,
  attribute: string,
): boolean {
  for (const item of evidence) {
    const value = item.attributes?.[attribute]
    if (value !== undefined && test(value)) return true
  }
  return false
}

/**
 * Grants when a verified credential of the request carries an `acr` of `minimum` or stronger (by the
 * order of `levels`). Otherwise an authenticated caller is denied with `insufficient-user-authentication`
 * and a challenge naming the acceptable values (RFC 9470 `acr_values`); anonymous callers get 401.
 * Pure: it reads only the evidence the route's mechanisms produced (`ACR_ATTRIBUTE`).
 */
export function acrAtLeast(minimum: string, options: AcrAtLeastOptions): Guard {
  readOptions(options, 'acrAtLeast', ACR_OPTIONS)
  const levels = options.levels
  if (levels.length === 0 || new Set(levels).size !== levels.length) {
    throw new ConfigurationError(INVALID, 'acrAtLeast levels must be a non-empty list without duplicates')
  }
  if (!levels.every((level) => ACR_VALUE.test(level))) {
    throw new ConfigurationError(
      INVALID,
      'acr values must be visible ASCII without spaces, quotes or backslashes',
    )
  }
  const index = levels.indexOf(minimum)
  if (index === -1) throw new ConfigurationError(INVALID, 'acrAtLeast minimum must be one of levels')
  const accepted = Object.freeze(levels.slice(index))
  const acceptedSet = new Set<unknown>(accepted)
  return userAuthenticationGuard(
    `acrAtLeast(${minimum})`,
    'authorization.acr_insufficient',
    { acrValues: accepted },
    (evidence) => someEvidence(evidence, (value) => acceptedSet.has(value), ACR_ATTRIBUTE),
  )
}

/**
 * A guard over the verified credentials of an authenticated caller: anonymous callers are denied as
 * unauthenticated; an authenticated caller whose evidence fails `satisfied` is denied with
 * `insufficient-user-authentication` and the RFC 9470 `challenge` the route needs.
 */
function userAuthenticationGuard(
  key: string,
  code: string,
  challenge: { readonly acrValues?: readonly string[]; readonly maxAge?: number },
  satisfied: (evidence: GuardContext['evidence']) => boolean,
): Guard {
  const anonymous = denied('unauthenticated', 'authorization.authentication_required', [key])
  const insufficient: GuardDecision = Object.freeze({
    granted: false,
    denial: 'insufficient-user-authentication',
    code,
    path: Object.freeze([key]),
    challenge: Object.freeze(challenge),
  })
  return Object.freeze({
    kind: 'guard' as const,
    key,
    parameters: Object.freeze([]),
    check(context: GuardContext): GuardDecision {
      if (context.principal === null) return anonymous
      return satisfied(context.evidence) ? GRANTED : insufficient
    },
  })
}

/**
 * Grants when a verified credential of the request says the user actively authenticated at most
 * `maxAgeSeconds` ago (its `auth_time`, `AUTH_TIME_ATTRIBUTE`), within `skewSeconds`, and not in the
 * future. Otherwise an authenticated caller is denied with `insufficient-user-authentication` and a
 * challenge carrying `maxAge` (RFC 9470 `max_age`). Reads the clock, nothing else.
 */
export function authenticatedWithin(maxAgeSeconds: number, options: AuthenticatedWithinOptions = {}): Guard {
  readOptions(options, 'authenticatedWithin', WITHIN_OPTIONS)
  if (!Number.isSafeInteger(maxAgeSeconds) || maxAgeSeconds < 0 || maxAgeSeconds > 31_536_000) {
    throw new ConfigurationError(
      INVALID,
      'authenticatedWithin needs an integer number of seconds up to a year',
    )
  }
  const skew = options.skewSeconds ?? 10
  const clock = options.clock ?? Date.now
  return userAuthenticationGuard(
    `authenticatedWithin(${maxAgeSeconds})`,
    'authorization.authentication_too_old',
    { maxAge: maxAgeSeconds },
    (evidence) => {
      const now = clock() / 1000
      const fresh = (value: string | number | boolean) =>
        typeof value === 'number' &&
        Number.isFinite(value) &&
        value <= now + skew &&
        now - value <= maxAgeSeconds + skew
      return someEvidence(evidence, fresh, AUTH_TIME_ATTRIBUTE)
    },
  )
}
