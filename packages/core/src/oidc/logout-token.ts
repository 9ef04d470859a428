import { compactVerify } from 'jose'
import type { JWKSAlgorithm } from '../jwks/jwks-provider.js'
import { isStrictIdentifier } from '../jwks/strict-identifier.js'
import { type JsonObject, parseCompactJwt } from '../workload-jwt/compact-jwt.js'
import { FORBIDDEN_HEADERS } from '../workload-jwt/jwt-verifier.js'
import { logoutTokenRejected, OIDCProviderUnavailableError } from './errors.js'
import { expectedIssuer, type IdTokenRules } from './id-token.js'

/** The event member every logout token carries (OpenID Connect Back-Channel Logout 1.0, section 2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout'

/** A verified logout token: who (and which provider session) to sign out, and its `jti` for replay. */
export interface VerifiedLogoutToken {
  readonly issuer: string
  readonly subject?: string
  /** `sid`: the provider session. */
  readonly sessionId?: string
  readonly jti: string
  /** `iat`, seconds since the epoch. */
  readonly issuedAt: number
}

const MAX_LOGOUT_TOKEN_BYTES = 16 * 1024
const TYPES = new Set(['jwt', 'logout+jwt'])

function reject(reason: string): never {
  throw logoutTokenRejected(reason)
}

function numericDate(value: unknown, reason: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) reject(reason)
  return value
}

function checkHeader(header: JsonObject, algorithms: ReadonlySet<string>): void {
  // Only the provider's asymmetric ID-token algorithms: never `none`, never an HMAC over a public key.
  if (typeof header.alg !== 'string' || !algorithms.has(header.alg)) reject('alg')
  for (const name of FORBIDDEN_HEADERS) if (Object.hasOwn(header, name)) reject('header')
  if (!isStrictIdentifier(header.kid, 256)) reject('kid')
  const typ = header.typ
  if (
    typ !== undefined &&
    (typeof typ !== 'string' || !TYPES.has(typ.toLowerCase().replace(/^application\//, '')))
  ) {
    reject('typ')
  }
}

/**
 * The claims of a logout token (section 2.4 and 2.6): `iss` exactly the provider's, `aud` naming the client,
 * `iat` within `maxAgeSeconds` (and not in the future beyond the skew), `exp` and `nbf` when present,
 * a `jti`, the back-channel logout event as a JSON object, no `nonce` (so an ID token is never accepted
 * as one), and a `sub`, a `sid` or both.
 */
function checkClaims(
  payload: JsonObject,
  rules: IdTokenRules,
  now: number,
  maxAgeSeconds: number,
): VerifiedLogoutToken {
  const issuer = expectedIssuer(rules.issuer, payload)
  if (issuer === undefined || payload.iss !== issuer) reject('iss')
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud]
  if (!audiences.includes(rules.clientId)) reject('aud')
  const skew = rules.clockSkewSeconds
  const issuedAt = numericDate(payload.iat, 'iat')
  if (issuedAt > now + skew) reject('iat-future')
  if (issuedAt < now - maxAgeSeconds - skew) reject('iat-stale')
  if (payload.exp !== undefined && numericDate(payload.exp, 'exp') <= now - skew) reject('expired')
  if (payload.nbf !== undefined && numericDate(payload.nbf, 'nbf') > now + skew) reject('nbf')
  if (!isStrictIdentifier(payload.jti, 255)) reject('jti')
  const events = payload.events
  if (typeof events !== 'object' || events === null || Array.isArray(events)) reject('events')
  const event = (events as JsonObject)[BACKCHANNEL_LOGOUT_EVENT]
  if (typeof event !== 'object' || event === null || Array.isArray(event)) reject('events')
  if (Object.hasOwn(payload, 'nonce')) reject('nonce')
  const { sub, sid } = payload
  if (sub !== undefined && !isStrictIdentifier(sub, 255)) reject('sub')
  if (sid !== undefined && !isStrictIdentifier(sid, 255)) reject('sid')
  if (sub === undefined && sid === undefined) reject('sub-and-sid-missing')
  return Object.freeze({
    issuer,
    ...(sub === undefined ? {} : { subject: sub as string }),
    ...(sid === undefined ? {} : { sessionId: sid as string }),
    jti: payload.jti as string,
    issuedAt,
  })
}

/**
 * Verifies an OpenID Connect Back-Channel Logout 1.0 logout token against the provider's ID-token rules:
 * structure, header (`typ` absent, `JWT` or `logout+jwt`; allow-listed algorithm; no key-carrying
 * headers), claims (see above), then the signature with a key of the provider's JWKS through the shared
 * `JWKSProvider`. Any failure is `oidc.logout_token.rejected` (400); a JWKS outage is
 * `oidc.provider.unavailable` (503). Replay (`jti`) is the caller's to refuse.
 */
export async function verifyLogoutToken(
  token: unknown,
  rules: IdTokenRules,
  options: { readonly now: Date; readonly maxAgeSeconds: number },
): Promise<VerifiedLogoutToken> {
  if (typeof token !== 'string') reject('missing')
  const parsed = parseCompactJwt(token, MAX_LOGOUT_TOKEN_BYTES)
  if (!parsed.ok) reject('malformed')
  const { header, payload } = parsed.jwt
  checkHeader(header, new Set(rules.algorithms))
  const verified = checkClaims(
    payload,
    rules,
    Math.floor(options.now.getTime() / 1000),
    options.maxAgeSeconds,
  )
  const selection = await rules.jwks.selectKey({
    issuer: rules.jwksIssuer,
    jwksUri: rules.jwksUri,
    kid: header.kid as string,
    alg: header.alg as JWKSAlgorithm,
  })
  if (selection.kind === 'unavailable') {
    throw new OIDCProviderUnavailableError(false, { reason: `jwks-${selection.reason}` })
  }
  if (selection.kind === 'invalid') reject('key')
  try {
    await compactVerify(token, selection.key.key, { algorithms: [selection.key.alg] })
  } catch {
    reject('signature')
  }
  return verified
}
