import { createHash, timingSafeEqual } from 'node:crypto'
import { compactVerify } from 'jose'
import type { JWKSAlgorithm, JWKSProvider } from '../jwks/jwks-provider.js'
import { isStrictIdentifier } from '../jwks/strict-identifier.js'
import type { JsonValue } from '../jwks/strict-json.js'
import { type JsonObject, parseCompactJwt } from '../workload-jwt/compact-jwt.js'
import { checkClaims } from '../workload-jwt/jwt-claims.js'
import { FORBIDDEN_HEADERS } from '../workload-jwt/jwt-verifier.js'
import { callbackRejected, OIDCProviderUnavailableError } from './errors.js'

/**
 * How the ID token's `iss` is judged: one exact issuer, or Entra ID's multi-tenant template where `iss`
 * must equal the template with `{tenantid}` replaced by the token's own `tid` claim.
 */
export type IssuerRule =
  | { readonly kind: 'exact'; readonly issuer: string }
  | {
      readonly kind: 'tenant-template'
      readonly template: string
      /** When set, only these tenant ids are accepted. */
      readonly allowedTenants?: ReadonlySet<string>
      /** Tenant ids never accepted (the consumer tenant for `organizations`). */
      readonly excludedTenants?: ReadonlySet<string>
    }

export interface IdTokenRules {
  readonly issuer: IssuerRule
  /** The issuer label the JWKS source was registered under (the document issuer). */
  readonly jwksIssuer: string
  readonly jwksUri: string
  readonly jwks: JWKSProvider
  readonly algorithms: readonly JWKSAlgorithm[]
  readonly clientId: string
  readonly clockSkewSeconds: number
  readonly maxLifetimeSeconds: number
}

/** The verified claims Portcullis uses. Only `issuer` and `subject` identify anyone. */
export interface VerifiedIdToken {
  readonly issuer: string
  readonly subject: string
  /** Signed `auth_time`, seconds since the epoch. */
  readonly authTime?: number
  readonly acr?: string
  readonly amr: readonly string[]
  readonly email?: string
  readonly emailVerified: boolean
  readonly name?: string
  /** `sid`: the provider's session, which a back-channel logout names. */
  readonly sessionId?: string
}

const MAX_ID_TOKEN_BYTES = 16 * 1024
const MAX_NUMERIC_DATE = 253_402_300_799
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

function digestEquals(left: string, right: string): boolean {
  const a = createHash('sha256').update(left, 'utf8').digest()
  const b = createHash('sha256').update(right, 'utf8').digest()
  return timingSafeEqual(a, b)
}

/** The issuer a token's `iss` must equal under `rule` (undefined: no acceptable tenant). */
export function expectedIssuer(rule: IssuerRule, payload: JsonObject): string | undefined {
  if (rule.kind === 'exact') return rule.issuer
  const tid = payload.tid
  if (typeof tid !== 'string' || !TENANT_ID.test(tid)) return undefined
  if (rule.allowedTenants !== undefined && !rule.allowedTenants.has(tid)) return undefined
  if (rule.excludedTenants?.has(tid)) return undefined
  return rule.template.replace('{tenantid}', tid)
}

function headerProblem(header: JsonObject, algorithms: ReadonlySet<string>): string | undefined {
  if (typeof header.alg !== 'string' || !algorithms.has(header.alg)) return 'id-token-alg'
  for (const name of FORBIDDEN_HEADERS) if (Object.hasOwn(header, name)) return 'id-token-header'
  if (!isStrictIdentifier(header.kid, 256)) return 'id-token-kid'
  const typ = header.typ
  if (typ === undefined) return undefined
  if (typeof typ !== 'string' || typ.toLowerCase().replace(/^application\//, '') !== 'jwt') {
    return 'id-token-typ'
  }
  return undefined
}

function amrValues(value: JsonValue | undefined): string[] | undefined {
  if (value === undefined) return []
  if (!Array.isArray(value) || value.length > 32) return undefined
  if (!value.every((item) => typeof item === 'string' && item.length > 0 && item.length <= 64)) {
    return undefined
  }
  const values = value as string[]
  return new Set(values).size === values.length ? values : undefined
}

/**
 * Verifies an ID token from the token endpoint with the shared JWKS provider: structure, header (pinned
 * algorithms, `kid`, `typ` absent or `JWT`, no key-carrying headers), issuer (exact or tenant template),
 * audience containing the client id, `azp` equal to the client id when present and required when there
 * are several audiences, `exp`/`iat` with a bounded skew and lifetime, `iat` not before the transaction
 * began, the nonce (compared as SHA-256 digests in constant time), then the signature. Failures are
 * `oidc.callback.rejected`; a JWKS outage is `oidc.provider.unavailable` (not retryable: the code is spent).
 */
export async function verifyIdToken(
  token: string,
  rules: IdTokenRules,
  expected: { readonly nonce: string; readonly notBefore: Date; readonly now: Date },
): Promise<VerifiedIdToken> {
  const parsed = parseCompactJwt(token, MAX_ID_TOKEN_BYTES)
  if (!parsed.ok) throw callbackRejected('id-token-malformed')
  const { header, payload } = parsed.jwt
  const problem = headerProblem(header, new Set(rules.algorithms))
  if (problem !== undefined) throw callbackRejected(problem)
  const issuer = expectedIssuer(rules.issuer, payload)
  if (issuer === undefined) throw callbackRejected('id-token-tenant')
  const nowSeconds = expected.now.getTime() / 1000
  const checked = checkClaims(
    payload,
    {
      issuer,
      audiences: new Set([rules.clientId]),
      clockSkewSeconds: rules.clockSkewSeconds,
      maxLifetimeSeconds: rules.maxLifetimeSeconds,
      requiredIdentifiers: [],
      subjectClaim: 'sub',
    },
    nowSeconds,
  )
  if (!checked.ok) throw callbackRejected(`id-token-${checked.reason.replace(/^jwt\./, '')}`)
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud]
  if (payload.azp !== undefined && payload.azp !== rules.clientId) throw callbackRejected('id-token-azp')
  if (audiences.length > 1 && payload.azp === undefined) throw callbackRejected('id-token-azp-missing')
  if (checked.claims.issuedAt < Math.floor(expected.notBefore.getTime() / 1000) - rules.clockSkewSeconds) {
    throw callbackRejected('id-token-issued-before-transaction')
  }
  if (typeof payload.nonce !== 'string' || !digestEquals(payload.nonce, expected.nonce)) {
    throw callbackRejected('nonce-mismatch')
  }
  const authTime = payload.auth_time
  if (
    authTime !== undefined &&
    (typeof authTime !== 'number' ||
      !Number.isSafeInteger(authTime) ||
      authTime < 0 ||
      authTime > MAX_NUMERIC_DATE)
  ) {
    throw callbackRejected('id-token-auth-time')
  }
  const acr = payload.acr
  if (acr !== undefined && (typeof acr !== 'string' || acr.length === 0 || acr.length > 256)) {
    throw callbackRejected('id-token-acr')
  }
  const amr = amrValues(payload.amr)
  if (amr === undefined) throw callbackRejected('id-token-amr')
  const sid = payload.sid
  if (sid !== undefined && !isStrictIdentifier(sid, 255)) throw callbackRejected('id-token-sid')

  const selection = await rules.jwks.selectKey({
    issuer: rules.jwksIssuer,
    jwksUri: rules.jwksUri,
    kid: header.kid as string,
    alg: header.alg as JWKSAlgorithm,
  })
  if (selection.kind === 'unavailable') {
    throw new OIDCProviderUnavailableError(false, { reason: `jwks-${selection.reason}` })
  }
  if (selection.kind === 'invalid') throw callbackRejected('id-token-key')
  try {
    await compactVerify(token, selection.key.key, { algorithms: [selection.key.alg] })
  } catch {
    throw callbackRejected('id-token-signature')
  }
  const email = typeof payload.email === 'string' && payload.email.length <= 320 ? payload.email : undefined
  const name = typeof payload.name === 'string' && payload.name.length <= 256 ? payload.name : undefined
  return Object.freeze({
    issuer,
    subject: checked.claims.subject,
    ...(authTime === undefined ? {} : { authTime: authTime as number }),
    ...(acr === undefined ? {} : { acr: acr as string }),
    amr: Object.freeze(amr),
    ...(email === undefined ? {} : { email }),
    emailVerified: email !== undefined && payload.email_verified === true,
    ...(name === undefined ? {} : { name }),
    ...(sid === undefined ? {} : { sessionId: sid as string }),
  })
}
