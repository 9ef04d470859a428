import { type VerifiedCacheOptions, verifiedCacheBounds } from '../cache/verified-cache.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { isJWKSAlgorithm, JWKS_ALGORITHMS, type JWKSAlgorithm } from '../jwks/jwks-provider.js'
import { isStrictIdentifier } from '../jwks/strict-identifier.js'

export interface WorkloadJwtSettings {
  readonly audiences: ReadonlySet<string>
  readonly algorithms: readonly JWKSAlgorithm[]
  readonly scopeClaim: string
  readonly subjectClaim: string
  readonly clockSkewSeconds: number
  readonly maxLifetimeSeconds: number
  readonly maxTokenBytes: number
  readonly cache: { readonly maxEntries: number; readonly maxTtlMs: number } | undefined
}

interface RawOptions {
  readonly issuer: string
  readonly audience: string | readonly string[]
  readonly algorithms?: readonly JWKSAlgorithm[]
  readonly scopeClaim?: string
  readonly subjectClaim?: string
  readonly clockSkewSeconds?: number
  readonly maxLifetimeSeconds?: number
  readonly maxTokenBytes?: number
  readonly cache?: false | VerifiedCacheOptions
}

const CLAIM_NAME = /^[A-Za-z0-9_]{1,64}$/

function bad(message: string, code = 'workload_jwt.invalid_config'): never {
  throw new ConfigurationError(code, message)
}

function bounded(
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
  name: string,
): number {
  const result = value ?? fallback
  if (typeof result !== 'number' || !Number.isFinite(result) || result < min || result > max) {
    bad(`${name} must be a number between ${min} and ${max}`)
  }
  return result
}

/** Startup validation shared by the workload JWT and IAP mechanisms; throws `ConfigurationError`. */
export function validateWorkloadJwtOptions(options: RawOptions): WorkloadJwtSettings {
  if (!isStrictIdentifier(options.issuer)) bad('issuer must be a non-blank string')
  const audiences = typeof options.audience === 'string' ? [options.audience] : [...(options.audience ?? [])]
  if (
    audiences.length === 0 ||
    audiences.length > 16 ||
    !audiences.every((value) => isStrictIdentifier(value))
  ) {
    bad('audience must be one non-blank string or a list of 1 to 16 of them')
  }
  const algorithms = [...(options.algorithms ?? JWKS_ALGORITHMS)]
  if (algorithms.length === 0 || !algorithms.every((algorithm) => isJWKSAlgorithm(algorithm))) {
    bad(
      'algorithms are limited to EdDSA, ES256, RS256 and PS256 (never none or HMAC)',
      'workload_jwt.unsupported_algorithm',
    )
  }
  const scopeClaim = options.scopeClaim ?? 'scope'
  const subjectClaim = options.subjectClaim ?? 'sub'
  if (!CLAIM_NAME.test(scopeClaim) || !CLAIM_NAME.test(subjectClaim))
    bad('claim names must match [A-Za-z0-9_]+')
  let cache: WorkloadJwtSettings['cache']
  if (options.cache !== undefined && options.cache !== false) {
    cache = verifiedCacheBounds(options.cache, 'cache', 'workload_jwt.invalid_config')
  }
  const maxTokenBytes = bounded(options.maxTokenBytes, 16_384, 64, 65_536, 'maxTokenBytes')
  return {
    audiences: new Set(audiences),
    algorithms,
    scopeClaim,
    subjectClaim,
    clockSkewSeconds: bounded(options.clockSkewSeconds, 30, 0, 300, 'clockSkewSeconds'),
    maxLifetimeSeconds: bounded(options.maxLifetimeSeconds, 3600, 1, 7 * 86_400, 'maxLifetimeSeconds'),
    maxTokenBytes,
    cache,
  }
}
