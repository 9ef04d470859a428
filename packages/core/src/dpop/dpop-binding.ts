import { createHash } from 'node:crypto'
import type { CredentialSource } from '../authentication/mechanism.js'
import {
  type AuthenticationChallenge,
  type AuthenticationOutcome,
  invalid,
  unavailable,
} from '../authentication/outcome.js'
import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { isJWKSAlgorithm, type JWKSAlgorithm } from '../jwks/jwks-provider.js'
import type { RateLimitStore } from '../local-accounts/rate-limits/rate-limit-store.js'
import type { DPoPNonces } from './dpop-nonces.js'
import { normalizeHtu, verifyDPoPProof } from './dpop-proof.js'

/** DPoP (RFC 9449) at a resource: the `dpop` option of `oauthAccessTokens` and `workloadJwt`. */
export interface DPoPOptions {
  /**
   * The public origins this resource is reached at (`https://api.example.com`), as clients see them
   * behind proxies. A proof's `htu` must be one of them followed by the request path; request headers
   * (`Host`, `X-Forwarded-*`) are never trusted for this.
   */
  readonly origins: readonly string[]
  /**
   * Where each proof's `jti` is remembered for its acceptance window, shared by every instance (the
   * application's `RateLimitStore`: `PostgresRateLimitStore`, or `MemoryRateLimitStore` for one process).
   */
  readonly replay: RateLimitStore
  /** Refuse tokens that are not DPoP-bound (bearer-only tokens). Default false. */
  readonly required?: boolean
  /** Accepted proof algorithms. Default ES256, EdDSA, RS256, PS256. Never `none` or HMAC. */
  readonly algorithms?: readonly JWKSAlgorithm[]
  /** Largest accepted proof age (`now - iat`). Default 60 s. */
  readonly maxAgeSeconds?: number
  /** Tolerated clock difference either way. Default 5 s. */
  readonly clockSkewSeconds?: number
  /** Require server nonces (RFC 9449 section 8). Default off. */
  readonly nonces?: DPoPNonces
}

const CONFIG = 'dpop.invalid_config'

export const DPOP_OPTIONS: OptionsShape<DPoPOptions> = {
  origins: { required: true, kind: 'array', elements: { kind: 'string' }, code: CONFIG },
  replay: { required: true, kind: 'object', code: CONFIG },
  required: { kind: 'boolean' },
  algorithms: { kind: 'array', code: CONFIG },
  maxAgeSeconds: { kind: 'number', code: CONFIG },
  clockSkewSeconds: { kind: 'number', code: CONFIG },
  nonces: { kind: 'object', code: CONFIG },
}

/** Checks the DPoP side of one request whose access token verified. */
export interface DPoPBinding {
  readonly required: boolean
  readonly algorithms: readonly JWKSAlgorithm[]
  /**
   * Undefined when the presentation is acceptable, otherwise the refusal. `jkt` is the token's bound key
   * thumbprint (undefined for an unbound token).
   */
  check(
    source: CredentialSource,
    scheme: 'bearer' | 'dpop',
    token: string,
    jkt: string | undefined,
  ): AuthenticationOutcome | undefined | Promise<AuthenticationOutcome | undefined>
}

function bad(message: string, option: string): never {
  throw new ConfigurationError(CONFIG, message, { option: `dpop.${option}` })
}

function origins(values: readonly string[]): readonly string[] {
  if (values.length === 0 || values.length > 16) bad('list 1 to 16 public origins', 'origins')
  return values.map((value) => {
    let url: URL | undefined
    try {
      url = new URL(value)
    } catch {
      url = undefined
    }
    const exact = url !== undefined && (value === url.origin || value === `${url.origin}/`)
    if (url === undefined || !exact || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      bad('each origin must be an http(s) origin without path, query or fragment', 'origins')
    }
    return url.origin
  })
}

function seconds(value: number | undefined, fallback: number, max: number, option: string): number {
  const result = value ?? fallback
  if (!Number.isInteger(result) || result < 0 || result > max)
    bad(`must be an integer from 0 to ${max}`, option)
  return result
}

/** Reads and validates the `dpop` option once, at startup; throws `ConfigurationError`. */
export function dpopBinding(options: DPoPOptions, prefix: string, clock: () => number): DPoPBinding {
  readOptions(options, 'dpop', DPOP_OPTIONS)
  const bases = origins(options.origins)
  const algorithms = [...(options.algorithms ?? ['ES256', 'EdDSA', 'RS256', 'PS256'])] as JWKSAlgorithm[]
  if (algorithms.length === 0 || !algorithms.every((value) => isJWKSAlgorithm(value))) {
    bad('algorithms are limited to EdDSA, ES256, RS256 and PS256 (never none or HMAC)', 'algorithms')
  }
  const allowed = new Set(algorithms)
  const maxAgeSeconds = Math.max(1, seconds(options.maxAgeSeconds, 60, 600, 'maxAgeSeconds'))
  const clockSkewSeconds = seconds(options.clockSkewSeconds, 5, 60, 'clockSkewSeconds')
  // A jti is remembered for as long as its proof could be accepted.
  const replayWindowSeconds = maxAgeSeconds + 2 * clockSkewSeconds + 1
  const { nonces, replay } = options
  const required = options.required ?? false

  const challenge = (error: AuthenticationChallenge['error'], nonce?: string): AuthenticationChallenge =>
    nonce === undefined ? { scheme: 'DPoP', error, algorithms } : { scheme: 'DPoP', error, algorithms, nonce }
  const refuse = (reason: string, error: AuthenticationChallenge['error'] = 'invalid_dpop_proof') =>
    invalid(`${prefix}: ${reason}`, challenge(error))

  const checkProof = async (source: CredentialSource, token: string, jkt: string) => {
    const proof = source.header('dpop')
    if (proof === undefined) return refuse('dpop.proof_missing')
    const nowMs = clock()
    const verified = verifyDPoPProof(proof, {
      method: source.method.toUpperCase(),
      urls: new Set(bases.map((base) => normalizeHtu(`${base}${source.path}`) ?? '')),
      accessToken: token,
      algorithms: allowed,
      now: nowMs / 1000,
      maxAgeSeconds,
      clockSkewSeconds,
    })
    if (!verified.ok) return refuse(verified.reason)
    const { thumbprint, jti, nonce } = verified.proof
    if (thumbprint !== jkt) return refuse('dpop.key_mismatch', 'invalid_token')
    if (nonces !== undefined && (nonce === undefined || !nonces.accepts(nonce, nowMs))) {
      return invalid(`${prefix}: dpop.nonce_required`, challenge('use_dpop_nonce', nonces.current(nowMs)))
    }
    const key = `dpop-jti:${createHash('sha256').update(`${thumbprint}\n${jti}`).digest('base64url')}`
    try {
      const decision = await replay.consume({
        key,
        limit: 1,
        windowSeconds: replayWindowSeconds,
        now: new Date(nowMs),
      })
      if (!decision.allowed) return refuse('dpop.replayed')
    } catch {
      return unavailable(`${prefix}: dpop replay store unavailable`)
    }
    return undefined
  }

  return {
    required,
    algorithms,
    check(source, scheme, token, jkt) {
      if (jkt === undefined) {
        if (scheme === 'dpop') return refuse('dpop.token_not_bound', 'invalid_token')
        return required ? refuse('dpop.bound_token_required', 'invalid_token') : undefined
      }
      if (scheme === 'bearer') return refuse('dpop.bound_token_as_bearer', 'invalid_token')
      return checkProof(source, token, jkt)
    },
  }
}
