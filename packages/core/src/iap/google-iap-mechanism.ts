import type { AuthenticationMechanism } from '../authentication/mechanism.js'
import {
  type AuthenticationOutcome,
  authenticated,
  invalid,
  none,
  unavailable,
} from '../authentication/outcome.js'
import type { Principal } from '../authentication/principal.js'
import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { JWKSProvider } from '../jwks/jwks-provider.js'
import { isStrictIdentifier } from '../jwks/strict-identifier.js'
import { createJwtVerifier } from '../workload-jwt/jwt-verifier.js'
import { type GoogleIapClaims, readIapClaims } from './iap-claims.js'

export const GOOGLE_IAP_ISSUER = 'https://cloud.google.com/iap'
export const GOOGLE_IAP_JWKS_URI = 'https://www.gstatic.com/iap/verify/public_key-jwk'
export const GOOGLE_IAP_HEADER = 'x-goog-iap-jwt-assertion'

/** What the application's resolver answers for verified IAP claims. */
export type IapIdentity =
  | { readonly kind: 'principal'; readonly principal: Principal }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly retryAfterSeconds?: number }

export interface GoogleIapOptions {
  /** Default `google-iap`. */
  readonly name?: string
  readonly default?: boolean
  /**
   * The one expected audience: `/projects/<number>/global/backendServices/<id>` behind a load balancer,
   * `/projects/<number>/apps/<project-id>` for App Engine.
   */
  readonly audience: string
  readonly jwks: JWKSProvider
  /** Override only for tests or a mirror; the issuer stays pinned to Google IAP. */
  readonly jwksUri?: string
  /** Default `x-goog-iap-jwt-assertion`. */
  readonly header?: string
  /**
   * Maps verified claims to the application's principal (look up the local account, say). May answer
   * `invalid` (unknown or disabled user: 401) or `unavailable` (directory down: 503); a throw is 503.
   * Default: a user principal whose id is the IAP subject (`accounts.google.com:<id>`).
   */
  readonly resolveIdentity?: (claims: GoogleIapClaims) => IapIdentity | Promise<IapIdentity>
  /** Default 30 s. */
  readonly clockSkewSeconds?: number
  /** Milliseconds since the epoch. */
  readonly clock?: () => number
}

const GOOGLE_IAP_OPTIONS: OptionsShape<GoogleIapOptions> = {
  name: { kind: 'string' },
  default: { kind: 'boolean' },
  audience: { required: true, kind: 'string', code: 'iap.invalid_config' },
  jwks: { required: true, kind: 'object' },
  jwksUri: { kind: 'string', code: 'jwks.insecure_uri' },
  header: { kind: 'string', code: 'iap.invalid_config' },
  resolveIdentity: { kind: 'function' },
  clockSkewSeconds: { kind: 'number', code: 'iap.invalid_config' },
  clock: { kind: 'function' },
}

const MAX_ASSERTION_BYTES = 16_384
const ASSERTION_LIFETIME_SECONDS = 600

const defaultResolver = (claims: GoogleIapClaims): IapIdentity => ({
  kind: 'principal',
  principal: { id: claims.subject, kind: 'user', displayName: claims.email ?? claims.subject },
})

/**
 * Google Cloud IAP: verifies the signed `x-goog-iap-jwt-assertion` (ES256 only, issuer pinned to
 * `https://cloud.google.com/iap`, exactly one audience, keys from Google's IAP key set through the shared
 * `JWKSProvider`). Unsigned identity headers such as `x-goog-authenticated-user-email` are never read.
 */
export function googleIap(options: GoogleIapOptions): AuthenticationMechanism {
  readOptions(options, 'googleIap', GOOGLE_IAP_OPTIONS)
  const header = (options.header ?? GOOGLE_IAP_HEADER).toLowerCase()
  if (!/^[a-z0-9-]{1,64}$/.test(header))
    throw new ConfigurationError('iap.invalid_config', 'IAP header name is invalid')
  if (typeof options.audience !== 'string' || !isStrictIdentifier(options.audience)) {
    throw new ConfigurationError('iap.invalid_config', 'IAP needs exactly one non-blank audience')
  }
  const skew = options.clockSkewSeconds ?? 30
  if (!Number.isFinite(skew) || skew < 0 || skew > 300) {
    throw new ConfigurationError('iap.invalid_config', 'IAP clock skew must be between 0 and 300 seconds')
  }
  const jwksUri = options.jwksUri ?? GOOGLE_IAP_JWKS_URI
  const name = options.name ?? 'google-iap'
  const resolve = options.resolveIdentity ?? defaultResolver
  options.jwks.register({ issuer: GOOGLE_IAP_ISSUER, jwksUri, algorithms: ['ES256'] })
  const verify = createJwtVerifier({
    issuer: GOOGLE_IAP_ISSUER,
    audiences: new Set([options.audience]),
    jwksUri,
    jwks: options.jwks,
    algorithms: ['ES256'],
    tokenTypes: ['jwt'],
    typOptional: false,
    toleratedHeaders: [],
    requiredIdentifiers: [],
    subjectClaim: 'sub',
    clockSkewSeconds: skew,
    maxLifetimeSeconds: ASSERTION_LIFETIME_SECONDS + 2 * skew,
    maxTokenBytes: MAX_ASSERTION_BYTES,
    clock: options.clock ?? Date.now,
  })

  return {
    name,
    default: options.default ?? true,
    securityScheme: {
      type: 'apiKey',
      in: 'header',
      name: header,
      description: 'Google Cloud IAP signed assertion',
    },
    authenticate(source) {
      const assertion = source.header(header)
      return assertion === undefined ? none() : verifyAssertion(assertion)
    },
  }
  async function verifyAssertion(assertion: string): Promise<AuthenticationOutcome> {
    // A repeated header arrives joined with ", ", which the compact-JWT grammar rejects.
    const result = await verify(assertion)
    if (result.kind === 'invalid') return invalid(`google-iap: ${result.reason}`)
    if (result.kind === 'unavailable') return result
    const claims = readIapClaims(
      result.jwt.payload,
      result.claims.subject,
      result.claims.issuedAt,
      result.claims.expiresAt,
    )
    if (claims === undefined) return invalid('google-iap: malformed optional claim')
    let identity: IapIdentity
    try {
      identity = await resolve(claims)
    } catch {
      return unavailable('google-iap: identity resolver failed')
    }
    if (identity?.kind === 'invalid' || identity?.kind === 'unavailable') return identity
    if (identity?.kind !== 'principal' || !isStrictIdentifier(identity.principal?.id)) {
      return unavailable('google-iap: identity resolver answered without a principal')
    }
    const attributes: Record<string, string> = { issuer: GOOGLE_IAP_ISSUER, subject: claims.subject }
    if (claims.email !== undefined) attributes.email = claims.email
    if (claims.hostedDomain !== undefined) attributes.hostedDomain = claims.hostedDomain
    return authenticated(identity.principal, {
      mechanism: name,
      credentialType: 'iap-assertion',
      attributes,
      expiresAt: claims.expiresAt,
    })
  }
}
