import { isStrictIdentifier } from '../jwks/strict-identifier.js'
import type { JsonValue } from '../jwks/strict-json.js'
import type { JsonObject } from './compact-jwt.js'

export interface ClaimRules {
  readonly issuer: string
  /** The token's `aud` must contain at least one of these. */
  readonly audiences: ReadonlySet<string>
  readonly clockSkewSeconds: number
  readonly maxLifetimeSeconds: number
  /** Claims (besides `iss sub aud iat exp`) that must be strict identifiers, e.g. `client_id`, `jti`. */
  readonly requiredIdentifiers: readonly string[]
  /** The claim naming the principal. Default `sub`. */
  readonly subjectClaim: string
}

/** Registered claims after validation. */
export interface CheckedClaims {
  readonly subject: string
  readonly issuedAt: number
  readonly expiresAt: number
}

export type ClaimCheck =
  | { readonly ok: true; readonly claims: CheckedClaims }
  | { readonly ok: false; readonly reason: string }

const fail = (reason: string): ClaimCheck => ({ ok: false, reason })

const isNumericDate = (value: JsonValue | undefined): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

/**
 * RFC 7519 / 9068 claim rules with a symmetric skew: reject `iat > now + skew`, `exp <= now - skew`,
 * `nbf > now + skew`, `exp <= iat`, `nbf >= exp` and lifetimes (`exp - iat`) above the maximum.
 * Dates must be integers; `iss` is an exact string match; `aud` is a strict string or a non-empty array
 * of unique strict strings that intersects the configured audiences.
 */
export function checkClaims(payload: JsonObject, rules: ClaimRules, nowSeconds: number): ClaimCheck {
  if (payload.iss !== rules.issuer) return fail('jwt.issuer_mismatch')
  const audience = payload.aud
  if (typeof audience === 'string') {
    if (!isStrictIdentifier(audience) || !rules.audiences.has(audience)) return fail('jwt.audience_mismatch')
  } else if (Array.isArray(audience)) {
    if (audience.length === 0 || audience.length > 32) return fail('jwt.bad_audience')
    if (!audience.every((value) => isStrictIdentifier(value))) return fail('jwt.bad_audience')
    if (new Set(audience).size !== audience.length) return fail('jwt.bad_audience')
    if (!audience.some((value) => rules.audiences.has(value as string))) return fail('jwt.audience_mismatch')
  } else {
    return fail('jwt.bad_audience')
  }
  const subject = payload[rules.subjectClaim]
  if (!isStrictIdentifier(subject)) return fail('jwt.bad_subject')
  for (const claim of rules.requiredIdentifiers) {
    if (!isStrictIdentifier(payload[claim])) return fail(`jwt.bad_${claim}`)
  }

  const { iat, exp, nbf } = payload
  if (!isNumericDate(iat) || !isNumericDate(exp)) return fail('jwt.bad_dates')
  if (nbf !== undefined && !isNumericDate(nbf)) return fail('jwt.bad_dates')
  const skew = rules.clockSkewSeconds
  if (exp <= iat) return fail('jwt.exp_not_after_iat')
  if (nbf !== undefined && nbf >= exp) return fail('jwt.nbf_not_before_exp')
  if (exp - iat > rules.maxLifetimeSeconds) return fail('jwt.lifetime_too_long')
  if (iat > nowSeconds + skew) return fail('jwt.issued_in_future')
  if (nbf !== undefined && nbf > nowSeconds + skew) return fail('jwt.not_yet_valid')
  if (exp <= nowSeconds - skew) return fail('jwt.expired')
  return { ok: true, claims: { subject, issuedAt: iat, expiresAt: exp } }
}

const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/

export type ScopeRead =
  | { readonly ok: true; readonly scopes: readonly string[] | undefined }
  | { readonly ok: false; readonly reason: string }

/**
 * Reads scopes from `claim` (default `scope`): a space-separated string (RFC 6749 scope tokens) or an
 * array of scope tokens, unique and non-empty. With the default claim, an `scp` array is accepted
 * instead, and both present is ambiguous and rejected. An absent claim gives `undefined`.
 */
export function readScopes(payload: JsonObject, claim: string): ScopeRead {
  let value = payload[claim]
  if (claim === 'scope' && payload.scp !== undefined) {
    if (value !== undefined) return { ok: false, reason: 'jwt.ambiguous_scope' }
    value = payload.scp
  }
  if (value === undefined) return { ok: true, scopes: undefined }
  let scopes: JsonValue[]
  if (typeof value === 'string') scopes = value.split(' ')
  else if (Array.isArray(value)) scopes = value
  else return { ok: false, reason: 'jwt.bad_scope' }
  if (scopes.length === 0 || scopes.length > 256) return { ok: false, reason: 'jwt.bad_scope' }
  if (!scopes.every((scope) => typeof scope === 'string' && SCOPE_TOKEN.test(scope))) {
    return { ok: false, reason: 'jwt.bad_scope' }
  }
  if (new Set(scopes).size !== scopes.length) return { ok: false, reason: 'jwt.bad_scope' }
  return { ok: true, scopes: scopes as string[] }
}
