import type { CryptoKey } from 'jose'

/** Asymmetric JWS algorithms a JWKS-backed verifier may use. Symmetric algorithms and `none` never are. */
export type JWKSAlgorithm = 'EdDSA' | 'ES256' | 'RS256' | 'PS256'

export const JWKS_ALGORITHMS: readonly JWKSAlgorithm[] = ['EdDSA', 'ES256', 'RS256', 'PS256']

export function isJWKSAlgorithm(value: unknown): value is JWKSAlgorithm {
  return typeof value === 'string' && (JWKS_ALGORITHMS as readonly string[]).includes(value)
}

/**
 * One pinned key source: keys published at `jwksUri` are trusted for tokens from `issuer`, and only for
 * the listed algorithms. The same URL registered under two issuers is two separate entries.
 */
export interface JWKSSource {
  readonly issuer: string
  readonly jwksUri: string
  readonly algorithms: readonly JWKSAlgorithm[]
}

/** A public key ready for signature verification, imported once and shared by every verifier. */
export interface VerificationKey {
  readonly kid: string
  readonly alg: JWKSAlgorithm
  readonly key: CryptoKey
}

export interface JWKSKeyRequest {
  readonly issuer: string
  readonly jwksUri: string
  readonly kid: string
  readonly alg: JWKSAlgorithm
}

/**
 * - `key`: the key for exactly this `(issuer, jwksUri, kid, alg)`;
 * - `invalid`: the key does not exist (after at most one forced refresh), or the request names an
 *   unregistered source or an algorithm outside it: the token must be rejected (401);
 * - `unavailable`: the key set could not be obtained: a dependency is down (503).
 * `reason` is a stable code for logs; it never carries key material.
 */
export type JWKSKeySelection =
  | { readonly kind: 'key'; readonly key: VerificationKey }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly retryAfterSeconds?: number }

/**
 * Port: the process-wide source of JWT verification keys. One instance is shared by every verifier
 * (workload JWTs, IAP, OIDC), so each key set is fetched and imported once per process.
 */
export interface JWKSProvider {
  /**
   * Pins a source. Registering the same `(issuer, jwksUri)` again adds algorithms to that entry; verifiers
   * still restrict themselves to their own allow-lists. Throws `ConfigurationError` for an insecure URL,
   * an unsupported algorithm or a closed provider.
   */
  register(source: JWKSSource): void
  /** Never throws: failures are `invalid` or `unavailable`. */
  selectKey(request: JWKSKeyRequest): Promise<JWKSKeySelection>
  /** Fetches every registered source that has no key set yet; rejects with `JWKSError` if any fails. */
  warmup(): Promise<void>
  /** Idempotent. Aborts in-flight refreshes; closes the fetcher only when the provider owns it. */
  close(): Promise<void>
}
