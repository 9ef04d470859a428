import type { AuthenticationMechanism } from '../../authentication/mechanism.js'
import {
  type AuthenticationOutcome,
  authenticated,
  invalid,
  none,
  unavailable,
} from '../../authentication/outcome.js'
import { AUTH_TIME_ATTRIBUTE } from '../../authorization/user-authentication.js'
import { extractBearer } from '../../workload-jwt/bearer.js'
import { parseCompactJwt } from '../../workload-jwt/compact-jwt.js'
import type { EpochCache, EpochVerdict } from '../epoch-cache.js'
import { SECURITY_EPOCH_ATTRIBUTE } from '../sessions/session-mechanism.js'
import type { AccessTokenCheck, TokenManager, VerifiedAccessToken } from './token-manager.js'

/** Evidence attribute naming the refresh token family (sign-in) of a local access token. */
export const TOKEN_FAMILY_ATTRIBUTE = 'familyId'

export interface AccessTokenMechanismParts {
  readonly name: string
  readonly tokens: TokenManager
  readonly epochs: EpochCache
  readonly shareBearerHeader: boolean
}

/**
 * The `bearer` mechanism for local access tokens: `Authorization: Bearer <at+jwt>` verified in process
 * (the workload-JWT verifier over a `LocalJWKSProvider`, with a bounded verified-token cache), then its
 * `sec_epoch` compared with the account's current security epoch (the epoch cache, at most the staleness
 * setting old). A token from before a password change is `invalid` on every instance within that bound.
 */
export function accessTokenMechanism(parts: AccessTokenMechanismParts): AuthenticationMechanism {
  const { name, tokens, epochs, shareBearerHeader } = parts
  const outcomes = new WeakMap<VerifiedAccessToken, AuthenticationOutcome>()

  const granted = (token: VerifiedAccessToken): AuthenticationOutcome => {
    let outcome = outcomes.get(token)
    if (outcome === undefined) {
      const attributes: Record<string, string | number> = {
        [SECURITY_EPOCH_ATTRIBUTE]: token.securityEpoch,
        jti: token.jti,
        kid: token.kid,
      }
      if (token.familyId !== undefined) attributes[TOKEN_FAMILY_ATTRIBUTE] = token.familyId
      // What `authenticatedWithin` reads: when the user last signed in with the password (RFC 9470).
      if (token.authTime !== undefined) attributes[AUTH_TIME_ATTRIBUTE] = token.authTime
      outcome = authenticated(
        { id: token.accountId, kind: 'user' },
        { mechanism: name, credentialType: 'local-access-token', attributes, expiresAt: token.expiresAt },
      )
      outcomes.set(token, outcome)
    }
    return outcome
  }

  const byEpoch = (token: VerifiedAccessToken, verdict: EpochVerdict): AuthenticationOutcome => {
    if (verdict === 'current') return granted(token)
    return invalid(verdict === 'stale' ? 'local-token: security epoch moved' : 'local-token: account is gone')
  }

  const checked = (
    check: AccessTokenCheck,
    raw: string,
  ): AuthenticationOutcome | Promise<AuthenticationOutcome> => {
    if (check.kind === 'unavailable') return check
    if (check.kind === 'invalid') {
      if (shareBearerHeader && !namesIssuer(raw, tokens.issuer)) return none()
      return invalid(`local-token: ${check.reason}`)
    }
    const { token } = check
    let verdict: EpochVerdict | Promise<EpochVerdict>
    try {
      verdict = epochs.verify(token.accountId, token.securityEpoch)
    } catch {
      return unavailable('local-token: account store failed')
    }
    if (typeof verdict === 'string') return byEpoch(token, verdict)
    return verdict.then(
      (settled) => byEpoch(token, settled),
      () => unavailable('local-token: account store failed'),
    )
  }

  return {
    name,
    default: true,
    securityScheme: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: `Local access token (at+jwt) from ${tokens.issuer}`,
    },
    authenticate(source) {
      const bearer = extractBearer(source.header('authorization'))
      if (bearer.kind === 'absent') return none()
      if (bearer.kind === 'malformed') return invalid('local-token: malformed bearer header')
      const check = tokens.verify(bearer.token)
      return check instanceof Promise
        ? check.then((settled) => checked(settled, bearer.token))
        : checked(check, bearer.token)
    },
  }
}

function namesIssuer(token: string, issuer: string): boolean {
  const parsed = parseCompactJwt(token, 16_384)
  return parsed.ok && parsed.jwt.payload.iss === issuer
}
