import { compactVerify } from 'jose'
import type { JWKSAlgorithm, JWKSProvider, VerificationKey } from '../jwks/jwks-provider.js'
import { isStrictIdentifier } from '../jwks/strict-identifier.js'
import { type CompactJwt, type JsonObject, parseCompactJwt } from './compact-jwt.js'
import { type CheckedClaims, type ClaimRules, checkClaims } from './jwt-claims.js'

/** JOSE headers that name or embed keys, or change processing; a pinned verifier never honours them. */
export const FORBIDDEN_HEADERS: readonly string[] = [
  'jku',
  'jwk',
  'x5u',
  'x5c',
  'x5t',
  'x5t#S256',
  'crit',
  'b64',
]

export interface JwtVerifierConfig extends ClaimRules {
  readonly jwksUri: string
  readonly jwks: JWKSProvider
  readonly algorithms: readonly JWKSAlgorithm[]
  /** Accepted `typ` values, lower case, without an `application/` prefix (`at+jwt`, `jwt`). */
  readonly tokenTypes: readonly string[]
  /** Whether a token without `typ` is accepted. */
  readonly typOptional: boolean
  /** Headers from `FORBIDDEN_HEADERS` tolerated (and ignored) for this profile, e.g. GitHub's `x5t` hint. */
  readonly toleratedHeaders: readonly string[]
  readonly maxTokenBytes: number
  /** Milliseconds since the epoch. */
  readonly clock: () => number
}

export type JwtVerification =
  | {
      readonly kind: 'verified'
      readonly jwt: CompactJwt
      readonly claims: CheckedClaims
      readonly key: VerificationKey
    }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly retryAfterSeconds?: number }

const invalid = (reason: string): JwtVerification => ({ kind: 'invalid', reason })

/**
 * A pinned JWT verifier: structure, then header (allow-listed `alg`, never `none`, strict `kid`, `typ` per
 * profile, no key-carrying headers), then claims, then the key for exactly `(issuer, jwksUri, kid, alg)`
 * from the shared provider, then the signature with exactly the header algorithm against a key imported
 * for that algorithm (so an HS256 token can never be checked with an RSA or EC public key). Claims are
 * checked before the key lookup so garbage never causes a JWKS refresh; the answer is the same either way.
 */
export function createJwtVerifier(config: JwtVerifierConfig): (token: string) => Promise<JwtVerification> {
  const algorithms = new Set<string>(config.algorithms)
  const tokenTypes = new Set(config.tokenTypes)
  const forbidden = FORBIDDEN_HEADERS.filter((header) => !config.toleratedHeaders.includes(header))

  const checkHeader = (header: JsonObject): string | undefined => {
    const { alg, kid, typ } = header
    if (typeof alg !== 'string' || !algorithms.has(alg)) return 'jwt.algorithm_not_allowed'
    for (const name of forbidden) if (Object.hasOwn(header, name)) return 'jwt.forbidden_header'
    if (!isStrictIdentifier(kid, 256)) return 'jwt.bad_kid'
    if (typ === undefined) return config.typOptional ? undefined : 'jwt.missing_typ'
    if (typeof typ !== 'string') return 'jwt.bad_typ'
    const normalized = typ.toLowerCase().replace(/^application\//, '')
    return tokenTypes.has(normalized) ? undefined : 'jwt.bad_typ'
  }

  return async (token) => {
    const parsed = parseCompactJwt(token, config.maxTokenBytes)
    if (!parsed.ok) return invalid(parsed.reason)
    const { header, payload } = parsed.jwt
    const headerProblem = checkHeader(header)
    if (headerProblem !== undefined) return invalid(headerProblem)
    const checked = checkClaims(payload, config, config.clock() / 1000)
    if (!checked.ok) return invalid(checked.reason)

    const selection = await config.jwks.selectKey({
      issuer: config.issuer,
      jwksUri: config.jwksUri,
      kid: header.kid as string,
      alg: header.alg as JWKSAlgorithm,
    })
    if (selection.kind !== 'key') return selection
    try {
      await compactVerify(token, selection.key.key, { algorithms: [selection.key.alg] })
    } catch {
      return invalid('jwt.bad_signature')
    }
    return { kind: 'verified', jwt: parsed.jwt, claims: checked.claims, key: selection.key }
  }
}
