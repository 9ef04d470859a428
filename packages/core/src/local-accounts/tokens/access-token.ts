import { randomBytes as nodeRandomBytes } from 'node:crypto'
import { isStrictIdentifier } from '../../jwks/strict-identifier.js'
import type { WorkloadTokenProfile } from '../../workload-jwt/token-profiles.js'
import { invalidLocalInput, LocalAccountError } from '../errors.js'
import type { LocalSigningKeyRing } from './signing-key-ring.js'

/** The private claim carrying the account's security epoch at issue time. */
export const SECURITY_EPOCH_CLAIM = 'sec_epoch'

/** The claim carrying the session handle id a token is bound to (hybrid transport). */
export const SESSION_HANDLE_CLAIM = 'sid'

/** What `issueAccessToken` signs. */
export interface IssueAccessTokenRequest {
  readonly ring: LocalSigningKeyRing
  /** `iss`: the local issuer, the same string the verifier pins. */
  readonly issuer: string
  /** `aud`: one audience or a short list. */
  readonly audience: string | readonly string[]
  /** `sub`: the account id. */
  readonly subject: string
  /** `exp - iat`, at most the ring's `maxAccessTokenLifetimeSeconds`. */
  readonly lifetimeSeconds: number
  /** The account's security epoch (claim `sec_epoch`); a token with an older epoch is stale. */
  readonly securityEpoch: number
  /** The session *handle* id (never the session id) the token is bound to; claim `sid`. */
  readonly sessionBound?: string
  /** `client_id` (RFC 9068). */
  readonly clientId?: string
  /** `acr`: the authentication context class reached. */
  readonly acr?: string
  /** `amr`: authentication methods used (`pwd`, `otp`, ...). */
  readonly amr?: readonly string[]
  /** `auth_time`: when the user last actively authenticated. */
  readonly authTime?: Date
  /** `scope`: scope tokens, joined with spaces. */
  readonly scope?: readonly string[]
  /** Issue time (`iat`). */
  readonly now: Date
  /** Source of the `jti`. Default `node:crypto` `randomBytes`; must return exactly `size` bytes. */
  readonly randomBytes?: (size: number) => Uint8Array
}

/** A signed access token and its facts (none of which is secret except `token` itself). */
export interface IssuedAccessToken {
  /** The compact JWT. A bearer credential: never log it. */
  readonly token: string
  readonly jti: string
  readonly kid: string
  readonly issuedAt: Date
  readonly expiresAt: Date
}

/**
 * The verifier profile for local access tokens (`workloadJwt({ profile: localAccessTokenProfile, ... })`):
 * `typ` must be `at+jwt`, `jti` is required, `client_id` and `scope` are optional.
 */
export const localAccessTokenProfile: WorkloadTokenProfile = Object.freeze({
  name: 'local-at+jwt',
  tokenTypes: ['at+jwt'],
  typOptional: false,
  scopeRequired: false,
  requiredClaims: ['jti'],
  toleratedHeaders: [],
})

const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/
const JTI_BYTES = 16

function identifier(value: unknown, name: string): string {
  if (!isStrictIdentifier(value)) throw invalidLocalInput(`${name} must be a non-blank string`)
  return value
}

function stringList(values: readonly unknown[], name: string, pattern?: RegExp): string[] {
  if (!Array.isArray(values) || values.length === 0 || values.length > 64) {
    throw invalidLocalInput(`${name} must be a list of 1 to 64 strings`)
  }
  for (const value of values) {
    if (!isStrictIdentifier(value, 256) || (pattern !== undefined && !pattern.test(value))) {
      throw invalidLocalInput(`${name} has an invalid entry`)
    }
  }
  if (new Set(values).size !== values.length) throw invalidLocalInput(`${name} has duplicates`)
  return [...(values as readonly string[])]
}

/**
 * Signs an RFC 9068 access token with the ring's active key: header `alg`, `kid`, `typ: at+jwt`; claims
 * `iss`, `aud`, `sub`, `iat`, `exp`, a random `jti`, `sec_epoch`, and `client_id`, `sid`, `acr`, `amr`,
 * `auth_time`, `scope` when given. Refuses (`LocalAccountError` `local.invalid_input`) a lifetime above the
 * ring's maximum (the ring's retire window depends on it), a negative or fractional epoch, blank
 * identifiers and malformed scope tokens.
 */
export async function issueAccessToken(request: IssueAccessTokenRequest): Promise<IssuedAccessToken> {
  const { ring, lifetimeSeconds, securityEpoch } = request
  const issuer = identifier(request.issuer, 'issuer')
  const audience =
    typeof request.audience === 'string'
      ? identifier(request.audience, 'audience')
      : stringList(request.audience, 'audience')
  const subject = identifier(request.subject, 'subject')
  if (!Number.isSafeInteger(lifetimeSeconds) || lifetimeSeconds < 1) {
    throw invalidLocalInput('lifetimeSeconds must be a positive integer')
  }
  if (lifetimeSeconds > ring.maxAccessTokenLifetimeSeconds) {
    throw invalidLocalInput("lifetimeSeconds exceeds the key ring's maxAccessTokenLifetimeSeconds")
  }
  if (!Number.isSafeInteger(securityEpoch) || securityEpoch < 0) {
    throw invalidLocalInput('securityEpoch must be a non-negative integer')
  }
  const now = request.now instanceof Date ? request.now.getTime() : Number.NaN
  if (Number.isNaN(now)) throw invalidLocalInput('now must be a valid Date')
  const iat = Math.floor(now / 1000)
  const exp = iat + lifetimeSeconds

  const claims: Record<string, unknown> = { iss: issuer, sub: subject, aud: audience, iat, exp }
  const jti = newJti(request.randomBytes ?? nodeRandomBytes)
  claims.jti = jti
  if (request.clientId !== undefined) claims.client_id = identifier(request.clientId, 'clientId')
  claims[SECURITY_EPOCH_CLAIM] = securityEpoch
  if (request.sessionBound !== undefined) {
    claims[SESSION_HANDLE_CLAIM] = identifier(request.sessionBound, 'sessionBound')
  }
  if (request.acr !== undefined) claims.acr = identifier(request.acr, 'acr')
  if (request.amr !== undefined) claims.amr = stringList(request.amr, 'amr')
  if (request.authTime !== undefined) {
    const authTime = request.authTime instanceof Date ? request.authTime.getTime() : Number.NaN
    if (Number.isNaN(authTime) || authTime > now)
      throw invalidLocalInput('authTime must be a Date not after now')
    claims.auth_time = Math.floor(authTime / 1000)
  }
  if (request.scope !== undefined) claims.scope = stringList(request.scope, 'scope', SCOPE_TOKEN).join(' ')

  const key = ring.active
  const token = await key.sign(new TextEncoder().encode(JSON.stringify(claims)), 'at+jwt')
  return { token, jti, kid: key.kid, issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000) }
}

function newJti(random: (size: number) => Uint8Array): string {
  const bytes = random(JTI_BYTES)
  if (!(bytes instanceof Uint8Array) || bytes.length !== JTI_BYTES) {
    throw new LocalAccountError('local.randomness_failed', 'randomBytes returned the wrong size')
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')
}
