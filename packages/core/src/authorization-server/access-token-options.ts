import { type VerifiedCacheOptions, verifiedCacheBounds } from '../cache/verified-cache.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { isJWKSAlgorithm, type JWKSAlgorithm } from '../jwks/jwks-provider.js'
import { isStrictIdentifier } from '../jwks/strict-identifier.js'

/** The configuration error code of `oauthAccessTokens`. */
export const OAUTH_ACCESS_TOKENS_INVALID = 'oauth_access_tokens.invalid_config'

export interface AccessTokenSettings {
  readonly algorithms: readonly JWKSAlgorithm[]
  readonly clockSkewSeconds: number
  readonly maxLifetimeSeconds: number
  readonly maxTokenBytes: number
  /** Verified-signature cache bounds; undefined when off. */
  readonly tokenCache: { readonly maxEntries: number; readonly maxTtlMs: number } | undefined
  /** Grant-status cache bounds; undefined when off. */
  readonly grantCache: { readonly maxEntries: number; readonly maxTtlMs: number } | undefined
}

interface RawOptions {
  readonly issuer: string
  readonly resource: string
  readonly algorithms?: readonly JWKSAlgorithm[]
  readonly clockSkewSeconds?: number
  readonly maxLifetimeSeconds?: number
  readonly maxTokenBytes?: number
  readonly cache?: false | VerifiedCacheOptions
  readonly grantCache?: false | VerifiedCacheOptions
}

function bad(message: string, code = OAUTH_ACCESS_TOKENS_INVALID): never {
  throw new ConfigurationError(code, message)
}

function bounded(value: number | undefined, fallback: number, min: number, max: number, name: string) {
  const result = value ?? fallback
  if (typeof result !== 'number' || !Number.isFinite(result) || result < min || result > max) {
    bad(`${name} must be a number between ${min} and ${max}`)
  }
  return result
}

const cacheBounds = (value: false | VerifiedCacheOptions | undefined, name: string) =>
  value === false ? undefined : verifiedCacheBounds(value ?? {}, name, OAUTH_ACCESS_TOKENS_INVALID)

/** Startup validation of `oauthAccessTokens`; throws `ConfigurationError`. */
export function accessTokenSettings(options: RawOptions): AccessTokenSettings {
  if (!isStrictIdentifier(options.issuer)) bad('issuer must be a non-blank string')
  if (!isStrictIdentifier(options.resource)) bad('resource must be a non-blank string (the resource URL)')
  const algorithms = [...(options.algorithms ?? ['ES256'])]
  if (algorithms.length === 0 || !algorithms.every((algorithm) => isJWKSAlgorithm(algorithm))) {
    bad(
      'algorithms are limited to EdDSA, ES256, RS256 and PS256 (never none or HMAC)',
      'oauth_access_tokens.unsupported_algorithm',
    )
  }
  return {
    algorithms,
    clockSkewSeconds: bounded(options.clockSkewSeconds, 30, 0, 300, 'clockSkewSeconds'),
    maxLifetimeSeconds: bounded(options.maxLifetimeSeconds, 3600, 1, 86_400, 'maxLifetimeSeconds'),
    maxTokenBytes: bounded(options.maxTokenBytes, 16_384, 64, 65_536, 'maxTokenBytes'),
    tokenCache: cacheBounds(options.cache, 'cache'),
    grantCache: cacheBounds(options.grantCache, 'grantCache'),
  }
}
