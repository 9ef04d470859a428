import type { AuthenticationMechanism, CredentialSource } from '../authentication/mechanism.js'
import {
  type AuthenticationOutcome,
  authenticated,
  invalid,
  none,
  unavailable,
} from '../authentication/outcome.js'
import type { AuthenticationEvidence, Principal } from '../authentication/principal.js'
import { ACR_ATTRIBUTE, AUTH_TIME_ATTRIBUTE } from '../authorization/user-authentication.js'
import { VerifiedCache, type VerifiedCacheOptions, verifiedCacheOptions } from '../cache/verified-cache.js'
import { confirmationOf, extractAccessToken } from '../dpop/access-token-header.js'
import { DPOP_OPTIONS, type DPoPOptions, dpopBinding } from '../dpop/dpop-binding.js'
import { type OptionsShape, readOptions } from '../errors/options.js'
import type { JWKSAlgorithm, JWKSProvider } from '../jwks/jwks-provider.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import { type JsonObject, parseCompactJwt } from '../workload-jwt/compact-jwt.js'
import { readScopes } from '../workload-jwt/jwt-claims.js'
import { createJwtVerifier } from '../workload-jwt/jwt-verifier.js'
import { accessTokenProfile } from '../workload-jwt/token-profiles.js'
import { accessTokenSettings, OAUTH_ACCESS_TOKENS_INVALID } from './access-token-options.js'
import { GrantStatusCache } from './grant-status-cache.js'
import type { OAuthGrantStatus, OAuthGrants } from './port.js'

export interface OAuthAccessTokensOptions {
  /** Mechanism name for route policy. Default `oauth`. */
  readonly name?: string
  /** Whether `required()` with no names accepts it. Default true. */
  readonly default?: boolean
  /** The authorization server's issuer identifier (exact `iss`). */
  readonly issuer: string
  /**
   * This resource's identifier (`https://app.example/mcp`): the token's `aud` must be exactly this one
   * value. A token for another resource, or for several, is refused.
   */
  readonly resource: string
  /** The authorization server's `jwks_uri` (https; http only on loopback when the provider allows it). */
  readonly jwksUri: string
  readonly jwks: JWKSProvider
  /** Pinned algorithms. Default ES256. Never `none` or HMAC. */
  readonly algorithms?: readonly JWKSAlgorithm[]
  /** Where each request checks the token's grant (`MemoryOAuthServerStore`, the Postgres store). */
  readonly grants: Pick<OAuthGrants, 'status'>
  /** The application's revocation notices: they keep the grant-status cache true across instances. */
  readonly notices: RevocationNotices
  /** Default 30 s. */
  readonly clockSkewSeconds?: number
  /** Largest accepted `exp - iat`. Default 3600 s. */
  readonly maxLifetimeSeconds?: number
  /** Default 16384. */
  readonly maxTokenBytes?: number
  /**
   * Set when another mechanism also reads `Authorization: Bearer`: a bearer value that is not a JWT, or
   * whose unverified `iss` is not this issuer, is answered `none`. Default false.
   */
  readonly shareBearerHeader?: boolean
  /**
   * Verified-signature cache (keyed by token hash, never past `exp`). The grant is still checked on every
   * request. Default on (10,000 entries, 300 s); `false` verifies every signature.
   */
  readonly cache?: false | VerifiedCacheOptions
  /**
   * Active grant statuses, believed while `notices` are trusted (every request reads the grant
   * otherwise). Default on (10,000 entries, 300 s); `false` reads the grant on every request.
   */
  readonly grantCache?: false | VerifiedCacheOptions
  /**
   * DPoP (RFC 9449): accept `Authorization: DPoP <token>` with a `DPoP` proof for tokens bound by
   * `cnf.jkt`, and optionally require bound tokens. Without it, `DPoP` authorization is not this
   * mechanism's, and a bound token is refused (it is never accepted as a bearer token).
   */
  readonly dpop?: DPoPOptions
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number
}

const OPTIONS: OptionsShape<OAuthAccessTokensOptions> = {
  name: { kind: 'string' },
  default: { kind: 'boolean' },
  issuer: { required: true, kind: 'string', code: OAUTH_ACCESS_TOKENS_INVALID },
  resource: { required: true, kind: 'string', code: OAUTH_ACCESS_TOKENS_INVALID },
  jwksUri: { required: true, kind: 'string', code: 'jwks.insecure_uri' },
  jwks: { required: true, kind: 'object' },
  algorithms: { kind: 'array' },
  grants: { required: true, kind: 'object' },
  notices: { required: true, kind: 'object' },
  clockSkewSeconds: { kind: 'number', code: OAUTH_ACCESS_TOKENS_INVALID },
  maxLifetimeSeconds: { kind: 'number', code: OAUTH_ACCESS_TOKENS_INVALID },
  maxTokenBytes: { kind: 'number', code: OAUTH_ACCESS_TOKENS_INVALID },
  shareBearerHeader: { kind: 'boolean' },
  cache: { kind: ['false', 'object'], shape: verifiedCacheOptions(OAUTH_ACCESS_TOKENS_INVALID) },
  grantCache: { kind: ['false', 'object'], shape: verifiedCacheOptions(OAUTH_ACCESS_TOKENS_INVALID) },
  dpop: { kind: 'object', shape: DPOP_OPTIONS },
  clock: { kind: 'function' },
}

/** The `credentialType` of the evidence this mechanism produces. */
export const OAUTH_ACCESS_TOKEN_CREDENTIAL = 'oauth-access-token'

/** A token whose signature and claims verified; its grant is checked on every use. */
interface VerifiedToken {
  readonly grantId: string
  readonly subject: string
  readonly clientId: string
  /** The bound key's thumbprint (`cnf.jkt`), undefined for a bearer token. */
  readonly jkt: string | undefined
  readonly outcome: AuthenticationOutcome
}

/** A verified token, or the refusal (never `authenticated`: that waits for the grant check). */
type Verification = VerifiedToken | AuthenticationOutcome

/**
 * Authenticates users by the RFC 9068 JWT access tokens of Portcullis's own authorization server
 * (`@portcullis/authorization-server`): `Authorization: Bearer <at+jwt>` (or `DPoP <at+jwt>` with a proof,
 * when the `dpop` option is set and the token is bound) from the pinned issuer and key set, `aud` exactly
 * this resource, and a `grant_id` whose grant is still active for the token's `sub` and `client_id`. The principal is the account (`kind: 'user'`, id = `sub`); the token's scopes become
 * credential restrictions, so they only narrow what the account may do.
 */
export function oauthAccessTokens(options: OAuthAccessTokensOptions): AuthenticationMechanism {
  readOptions(options, 'oauthAccessTokens', OPTIONS)
  const settings = accessTokenSettings(options)
  const clock = options.clock ?? Date.now
  const name = options.name ?? 'oauth'
  const { issuer, resource } = options
  const dpop = options.dpop === undefined ? undefined : dpopBinding(options.dpop, 'oauth', clock)
  options.jwks.register({ issuer, jwksUri: options.jwksUri, algorithms: settings.algorithms })
  const verify = createJwtVerifier({
    issuer,
    audiences: new Set([resource]),
    jwksUri: options.jwksUri,
    jwks: options.jwks,
    algorithms: settings.algorithms,
    tokenTypes: accessTokenProfile.tokenTypes,
    typOptional: false,
    toleratedHeaders: [],
    requiredIdentifiers: [...accessTokenProfile.requiredClaims, 'grant_id'],
    subjectClaim: 'sub',
    clockSkewSeconds: settings.clockSkewSeconds,
    maxLifetimeSeconds: settings.maxLifetimeSeconds,
    maxTokenBytes: settings.maxTokenBytes,
    clock,
  })
  const tokens =
    settings.tokenCache === undefined
      ? undefined
      : new VerifiedCache<VerifiedToken>(settings.tokenCache.maxEntries, settings.tokenCache.maxTtlMs, clock)
  const grants =
    settings.grantCache === undefined
      ? { status: (grantId: string) => options.grants.status(grantId) }
      : new GrantStatusCache(options.grants, options.notices, { ...settings.grantCache, clock })

  const verifyToken = async (token: string): Promise<Verification> => {
    const result = await verify(token)
    if (result.kind === 'invalid') {
      if (options.shareBearerHeader === true && !namesIssuer(token, issuer, settings.maxTokenBytes)) {
        return none()
      }
      return invalid(`oauth: ${result.reason}`)
    }
    if (result.kind === 'unavailable') return result
    const { payload } = result.jwt
    if (!exactAudience(payload, resource)) return invalid('oauth: jwt.audience_not_exact')
    const scopes = readScopes(payload, 'scope')
    if (!scopes.ok) return invalid(`oauth: ${scopes.reason}`)
    if (scopes.scopes === undefined) return invalid('oauth: jwt.missing_scope')
    const confirmation = confirmationOf(payload)
    if (confirmation.kind === 'unsupported') return invalid('oauth: token.unsupported_confirmation')
    const clientId = payload.client_id as string
    const grantId = payload.grant_id as string
    const principal: Principal = { id: result.claims.subject, kind: 'user' }
    const attributes: Record<string, string | number> = {
      issuer,
      clientId,
      grantId,
      jti: payload.jti as string,
      kid: result.key.kid,
      alg: result.key.alg,
    }
    if (confirmation.kind === 'jkt') attributes.dpopJkt = confirmation.jkt
    if (typeof payload.acr === 'string') attributes[ACR_ATTRIBUTE] = payload.acr
    if (typeof payload.auth_time === 'number' && Number.isSafeInteger(payload.auth_time)) {
      attributes[AUTH_TIME_ATTRIBUTE] = payload.auth_time
    }
    const evidence: AuthenticationEvidence = {
      mechanism: name,
      credentialType: OAUTH_ACCESS_TOKEN_CREDENTIAL,
      attributes: Object.freeze(attributes),
      restrictions: Object.freeze({ scopes: Object.freeze([...scopes.scopes]) }),
      expiresAt: new Date(result.claims.expiresAt * 1000),
    }
    const verified: VerifiedToken = {
      grantId,
      subject: result.claims.subject,
      clientId,
      jkt: confirmation.kind === 'jkt' ? confirmation.jkt : undefined,
      outcome: Object.freeze(authenticated(Object.freeze(principal), Object.freeze(evidence))),
    }
    tokens?.set(VerifiedCache.keyOf(token), verified, result.claims.expiresAt * 1000)
    return verified
  }

  const judge = (token: VerifiedToken, status: OAuthGrantStatus | undefined): AuthenticationOutcome => {
    if (status === undefined) return invalid('oauth: grant_not_active')
    if (status.accountId !== token.subject) return invalid('oauth: grant_account_mismatch')
    if (status.clientId !== token.clientId) return invalid('oauth: grant_client_mismatch')
    return token.outcome
  }

  const checkGrant = (token: VerifiedToken): AuthenticationOutcome | Promise<AuthenticationOutcome> => {
    let status: ReturnType<typeof grants.status>
    try {
      status = grants.status(token.grantId)
    } catch {
      return unavailable('oauth: grant status unavailable')
    }
    if (!(status instanceof Promise)) return judge(token, status)
    return status.then(
      (value) => judge(token, value),
      () => unavailable('oauth: grant status unavailable'),
    )
  }

  /** The DPoP side of the presentation, then the grant. */
  const confirm = (
    source: CredentialSource,
    scheme: 'bearer' | 'dpop',
    token: string,
    verified: VerifiedToken,
  ): AuthenticationOutcome | Promise<AuthenticationOutcome> => {
    if (dpop === undefined) {
      return verified.jkt === undefined ? checkGrant(verified) : invalid('oauth: dpop.bound_token_as_bearer')
    }
    const refused = dpop.check(source, scheme, token, verified.jkt)
    if (refused === undefined) return checkGrant(verified)
    if (refused instanceof Promise) return refused.then((settled) => settled ?? checkGrant(verified))
    return refused
  }

  return {
    name,
    default: options.default ?? true,
    securityScheme: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: `OAuth access token from ${issuer} for ${resource}${dpop === undefined ? '' : dpop.required ? ' (DPoP-bound, RFC 9449)' : ' (bearer or DPoP-bound, RFC 9449)'}`,
    },
    authenticate(source) {
      const presented = extractAccessToken(source.header('authorization'), dpop !== undefined)
      if (presented.kind === 'absent') return none()
      if (presented.kind === 'malformed') return invalid('oauth: malformed bearer header')
      const { scheme, token } = presented
      const cached = tokens?.get(VerifiedCache.keyOf(token))
      if (cached !== undefined) return confirm(source, scheme, token, cached)
      return verifyToken(token).then((verified) =>
        'grantId' in verified ? confirm(source, scheme, token, verified) : verified,
      )
    },
  }
}

/** `aud` is this resource alone: the string, or a one-element array holding it. */
function exactAudience(payload: JsonObject, resource: string): boolean {
  const { aud } = payload
  if (typeof aud === 'string') return aud === resource
  return Array.isArray(aud) && aud.length === 1 && aud[0] === resource
}

function namesIssuer(token: string, issuer: string, maxTokenBytes: number): boolean {
  const parsed = parseCompactJwt(token, maxTokenBytes)
  return parsed.ok && parsed.jwt.payload.iss === issuer
}
