import type { AuthenticationMechanism, CredentialSource } from '../authentication/mechanism.js'
import { type AuthenticationOutcome, authenticated, invalid, none } from '../authentication/outcome.js'
import type { AuthenticationEvidence, Principal } from '../authentication/principal.js'
import { ACR_ATTRIBUTE, AUTH_TIME_ATTRIBUTE } from '../authorization/user-authentication.js'
import { VerifiedCache, type VerifiedCacheOptions, verifiedCacheOptions } from '../cache/verified-cache.js'
import { confirmationOf, extractAccessToken } from '../dpop/access-token-header.js'
import { DPOP_OPTIONS, type DPoPOptions, dpopBinding } from '../dpop/dpop-binding.js'
import { type OptionsShape, readOptions } from '../errors/options.js'
import type { JWKSAlgorithm, JWKSProvider } from '../jwks/jwks-provider.js'
import { parseCompactJwt } from './compact-jwt.js'
import { readScopes } from './jwt-claims.js'
import { createJwtVerifier } from './jwt-verifier.js'
import { accessTokenProfile, type WorkloadTokenProfile } from './token-profiles.js'
import { validateWorkloadJwtOptions } from './workload-jwt-options.js'

export interface WorkloadJwtOptions {
  /** Mechanism name for route policy. Default `workload-jwt`. */
  readonly name?: string
  /** Whether `required()` with no names accepts it. Default true. */
  readonly default?: boolean
  /** Pinned issuer (exact `iss`). */
  readonly issuer: string
  /** Pinned audience, or a short list of accepted audiences; the token's `aud` must contain one. */
  readonly audience: string | readonly string[]
  /** Pinned key set URL (https), fetched through the shared provider. */
  readonly jwksUri: string
  readonly jwks: JWKSProvider
  /** Allowed algorithms. Default EdDSA, ES256, RS256, PS256. */
  readonly algorithms?: readonly JWKSAlgorithm[]
  /** Default `accessTokenProfile` (`at+jwt`). */
  readonly profile?: WorkloadTokenProfile
  /** Claim holding scopes. Default `scope` (an `scp` array is accepted too). */
  readonly scopeClaim?: string
  /** Claim naming the service principal. Default `sub`. */
  readonly subjectClaim?: string
  /** Default 30 s. */
  readonly clockSkewSeconds?: number
  /** Largest accepted `exp - iat`. Default 3600 s. */
  readonly maxLifetimeSeconds?: number
  /** Default 16384. */
  readonly maxTokenBytes?: number
  /**
   * Set when another mechanism also reads `Authorization: Bearer` (a second workload issuer, local access
   * tokens): a bearer value that is not a JWT, or whose unverified `iss` is not this issuer, is answered
   * `none` (someone else's credential) instead of `invalid`. Tokens naming this issuer are still verified
   * in full, and any failure stays `invalid`. Default false: every bearer token is this mechanism's.
   */
  readonly shareBearerHeader?: boolean
  /** Verified-token cache (successes only, keyed by token hash, never past `exp`). Default off. */
  readonly cache?: false | VerifiedCacheOptions
  /**
   * DPoP (RFC 9449) for tokens bound by `cnf.jkt`: `Authorization: DPoP <token>` with a `DPoP` proof,
   * optionally required. Without it a bound token is refused (never accepted as a bearer token).
   */
  readonly dpop?: DPoPOptions
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number
}

const INVALID = 'workload_jwt.invalid_config'

const PROFILE_OPTIONS: OptionsShape<WorkloadTokenProfile> = {
  name: { required: true, kind: 'string' },
  tokenTypes: { required: true, kind: 'array', elements: { kind: 'string' } },
  typOptional: { required: true, kind: 'boolean' },
  scopeRequired: { required: true, kind: 'boolean' },
  requiredClaims: { required: true, kind: 'array', elements: { kind: 'string' } },
  toleratedHeaders: { required: true, kind: 'array', elements: { kind: 'string' } },
}

/** The options of `workloadJwt`; the presets reuse them. */
export const WORKLOAD_JWT_OPTIONS: OptionsShape<WorkloadJwtOptions> = {
  name: { kind: 'string' },
  default: { kind: 'boolean' },
  issuer: { required: true, kind: 'string', code: INVALID },
  audience: { required: true, kind: ['string', 'array'], code: INVALID },
  jwksUri: { required: true, kind: 'string', code: 'jwks.insecure_uri' },
  jwks: { required: true, kind: 'object' },
  algorithms: { kind: 'array' },
  profile: { kind: 'object', shape: PROFILE_OPTIONS },
  scopeClaim: { kind: 'string' },
  subjectClaim: { kind: 'string' },
  clockSkewSeconds: { kind: 'number', code: INVALID },
  maxLifetimeSeconds: { kind: 'number', code: INVALID },
  maxTokenBytes: { kind: 'number', code: INVALID },
  shareBearerHeader: { kind: 'boolean' },
  cache: { kind: ['false', 'object'], shape: verifiedCacheOptions(INVALID) },
  dpop: { kind: 'object', shape: DPOP_OPTIONS },
  clock: { kind: 'function' },
}

/** A verified token: its outcome and the bound key's thumbprint (`cnf.jkt`, undefined for bearer). */
interface Verified {
  readonly outcome: AuthenticationOutcome
  readonly jkt: string | undefined
}

/**
 * Authenticates non-user services by `Authorization: Bearer <JWT>` from a pinned issuer, audience and JWKS
 * URL. The principal is a service (`kind: 'service'`, id = subject claim); token scopes become credential
 * restrictions, so they can only narrow what the application grants that service.
 */
export function workloadJwt(options: WorkloadJwtOptions): AuthenticationMechanism {
  readOptions(options, 'workloadJwt', WORKLOAD_JWT_OPTIONS)
  return workloadJwtMechanism(options)
}

/** `workloadJwt` on options already read (by it or by a preset). */
export function workloadJwtMechanism(options: WorkloadJwtOptions): AuthenticationMechanism {
  const config = validateWorkloadJwtOptions(options)
  const profile = options.profile ?? accessTokenProfile
  const clock = options.clock ?? Date.now
  const name = options.name ?? 'workload-jwt'
  const dpop = options.dpop === undefined ? undefined : dpopBinding(options.dpop, 'workload-jwt', clock)
  options.jwks.register({ issuer: options.issuer, jwksUri: options.jwksUri, algorithms: config.algorithms })
  const verify = createJwtVerifier({
    issuer: options.issuer,
    audiences: config.audiences,
    jwksUri: options.jwksUri,
    jwks: options.jwks,
    algorithms: config.algorithms,
    tokenTypes: profile.tokenTypes.map((type) => type.toLowerCase()),
    typOptional: profile.typOptional,
    toleratedHeaders: profile.toleratedHeaders,
    requiredIdentifiers: profile.requiredClaims,
    subjectClaim: config.subjectClaim,
    clockSkewSeconds: config.clockSkewSeconds,
    maxLifetimeSeconds: config.maxLifetimeSeconds,
    maxTokenBytes: config.maxTokenBytes,
    clock,
  })
  const cache =
    config.cache === undefined
      ? undefined
      : new VerifiedCache<Verified>(config.cache.maxEntries, config.cache.maxTtlMs, clock)

  /** The DPoP side of the presentation of a verified token. */
  const confirm = (
    source: CredentialSource,
    scheme: 'bearer' | 'dpop',
    token: string,
    verified: Verified,
  ): AuthenticationOutcome | Promise<AuthenticationOutcome> => {
    if (dpop === undefined) {
      return verified.jkt === undefined
        ? verified.outcome
        : invalid('workload-jwt: dpop.bound_token_as_bearer')
    }
    const refused = dpop.check(source, scheme, token, verified.jkt)
    if (refused === undefined) return verified.outcome
    if (refused instanceof Promise) return refused.then((settled) => settled ?? verified.outcome)
    return refused
  }

  // A cached verdict answers synchronously (unless a DPoP proof is to check); the rest verifies.
  const authenticateToken = (
    source: CredentialSource,
    scheme: 'bearer' | 'dpop',
    token: string,
  ): AuthenticationOutcome | Promise<AuthenticationOutcome> => {
    const cacheKey = cache === undefined ? undefined : VerifiedCache.keyOf(token)
    const hit = cacheKey === undefined ? undefined : cache?.get(cacheKey)
    if (hit !== undefined) return confirm(source, scheme, token, hit)
    return verifyToken(token, cacheKey).then((verified) =>
      'jkt' in verified ? confirm(source, scheme, token, verified) : verified,
    )
  }

  const verifyToken = async (
    token: string,
    cacheKey: string | undefined,
  ): Promise<Verified | AuthenticationOutcome> => {
    const result = await verify(token)
    if (result.kind === 'invalid') {
      if (options.shareBearerHeader === true && !namesIssuer(token, options.issuer, config.maxTokenBytes)) {
        return none()
      }
      return invalid(`workload-jwt: ${result.reason}`)
    }
    if (result.kind === 'unavailable') return result
    const scopes = readScopes(result.jwt.payload, config.scopeClaim)
    if (!scopes.ok) return invalid(`workload-jwt: ${scopes.reason}`)
    if (profile.scopeRequired && scopes.scopes === undefined)
      return invalid('workload-jwt: jwt.missing_scope')

    const { payload } = result.jwt
    const confirmation = confirmationOf(payload)
    if (confirmation.kind === 'unsupported') return invalid('workload-jwt: token.unsupported_confirmation')
    const jkt = confirmation.kind === 'jkt' ? confirmation.jkt : undefined
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined
    const principal: Principal = {
      id: result.claims.subject,
      kind: 'service',
      displayName: clientId ?? result.claims.subject,
    }
    const attributes: Record<string, string | number> = {
      issuer: options.issuer,
      subject: result.claims.subject,
      profile: profile.name,
      kid: result.key.kid,
      alg: result.key.alg,
    }
    if (clientId !== undefined) attributes.clientId = clientId
    if (typeof payload.jti === 'string') attributes.jti = payload.jti
    if (jkt !== undefined) attributes.dpopJkt = jkt
    // What `acrAtLeast` / `authenticatedWithin` read (user access tokens carry them; workloads rarely do).
    if (typeof payload.acr === 'string') attributes[ACR_ATTRIBUTE] = payload.acr
    if (typeof payload.auth_time === 'number' && Number.isSafeInteger(payload.auth_time)) {
      attributes[AUTH_TIME_ATTRIBUTE] = payload.auth_time
    }
    const evidence: AuthenticationEvidence = {
      mechanism: name,
      credentialType: 'workload-jwt',
      attributes,
      expiresAt: new Date(result.claims.expiresAt * 1000),
      ...(scopes.scopes === undefined ? {} : { restrictions: { scopes: scopes.scopes } }),
    }
    const verified: Verified = { outcome: authenticated(principal, evidence), jkt }
    if (cache !== undefined && cacheKey !== undefined)
      cache.set(cacheKey, verified, result.claims.expiresAt * 1000)
    return verified
  }

  return {
    name,
    default: options.default ?? true,
    securityScheme: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: `Workload JWT from ${options.issuer}`,
    },
    authenticate(source) {
      const presented = extractAccessToken(source.header('authorization'), dpop !== undefined)
      if (presented.kind === 'absent') return none()
      if (presented.kind === 'malformed') return invalid('workload-jwt: malformed bearer header')
      return authenticateToken(source, presented.scheme, presented.token)
    },
  }
}

function namesIssuer(token: string, issuer: string, maxTokenBytes: number): boolean {
  const parsed = parseCompactJwt(token, maxTokenBytes)
  return parsed.ok && parsed.jwt.payload.iss === issuer
}
