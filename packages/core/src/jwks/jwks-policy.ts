import type { OptionsShape } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { FreshnessPolicy } from './freshness.js'
import { DEFAULT_MAX_JWKS_BYTES, type JWKSFetcher } from './jwks-fetcher.js'
import type { JWKSSource } from './jwks-provider.js'
import { JWKS_SOURCE_OPTIONS } from './jwks-source.js'

export interface CachedJWKSProviderOptions {
  readonly sources?: readonly JWKSSource[]
  /** Defaults to a `fetch`-based fetcher the provider creates (and therefore owns). */
  readonly fetcher?: JWKSFetcher
  /** Whether `close()` closes the fetcher. Default: true for the default fetcher, false for an injected one. */
  readonly ownsFetcher?: boolean
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number
  /** Allow `http://` JWKS URLs to 127.0.0.1, localhost and [::1] (tests, local development). Default false. */
  readonly allowInsecureLoopback?: boolean
  /** Freshness without `Cache-Control: max-age`. Default 900 s. */
  readonly defaultMaxAgeSeconds?: number
  /** `max-age` is clamped to [min, max]. Defaults 30 s and 86400 s. */
  readonly minMaxAgeSeconds?: number
  readonly maxMaxAgeSeconds?: number
  /** At most one forced refresh per source per cooldown for unknown `kid`s. Default 30 s. */
  readonly unknownKidCooldownSeconds?: number
  /** After expiry, a failed refresh may still serve known keys for this long. Default 300 s; 0 disables. */
  readonly staleIfErrorSeconds?: number
  /** After a failed refresh, no new fetch for this long (answers are `unavailable` with Retry-After). Default 5 s. */
  readonly failureBackoffSeconds?: number
  /** Document bounds. Defaults 1 MiB and 128 keys. */
  readonly maxDocumentBytes?: number
  readonly maxKeys?: number
  /** Remembered unknown `(kid, alg)` pairs per source. Default 1024. */
  readonly negativeCacheSize?: number
}

const NUMBER_RULE = { kind: 'number', code: 'jwks.invalid_policy' } as const

/** The keys of `CachedJWKSProviderOptions`; numbers are bounded by `jwksPolicy`. */
export const CACHED_JWKS_PROVIDER_OPTIONS: OptionsShape<CachedJWKSProviderOptions> = {
  sources: { kind: 'array', elements: { kind: 'object', shape: JWKS_SOURCE_OPTIONS } },
  fetcher: { kind: 'object' },
  ownsFetcher: { kind: 'boolean' },
  clock: { kind: 'function' },
  allowInsecureLoopback: { kind: 'boolean' },
  defaultMaxAgeSeconds: NUMBER_RULE,
  minMaxAgeSeconds: NUMBER_RULE,
  maxMaxAgeSeconds: NUMBER_RULE,
  unknownKidCooldownSeconds: NUMBER_RULE,
  staleIfErrorSeconds: NUMBER_RULE,
  failureBackoffSeconds: NUMBER_RULE,
  maxDocumentBytes: NUMBER_RULE,
  maxKeys: NUMBER_RULE,
  negativeCacheSize: NUMBER_RULE,
}

/** The validated numbers a `CachedJWKSProvider` runs on. */
export interface JWKSPolicy {
  readonly freshness: FreshnessPolicy
  readonly cooldownMs: number
  readonly staleMs: number
  readonly backoffMs: number
  readonly limits: { readonly maxBytes: number; readonly maxKeys: number }
  readonly negativeCacheSize: number
}

function seconds(value: number | undefined, fallback: number, name: string): number {
  const result = value ?? fallback
  if (!Number.isFinite(result) || result < 0) {
    throw new ConfigurationError('jwks.invalid_policy', `${name} must be a non-negative number`)
  }
  return result
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  const result = value ?? fallback
  if (!Number.isInteger(result) || result <= 0) {
    throw new ConfigurationError('jwks.invalid_policy', `${name} must be a positive integer`)
  }
  return result
}

/** Applies defaults and refuses nonsensical values with `ConfigurationError` (`jwks.invalid_policy`). */
export function jwksPolicy(options: CachedJWKSProviderOptions): JWKSPolicy {
  const freshness = {
    defaultMaxAgeSeconds: seconds(options.defaultMaxAgeSeconds, 900, 'defaultMaxAgeSeconds'),
    minMaxAgeSeconds: seconds(options.minMaxAgeSeconds, 30, 'minMaxAgeSeconds'),
    maxMaxAgeSeconds: seconds(options.maxMaxAgeSeconds, 86_400, 'maxMaxAgeSeconds'),
  }
  if (freshness.minMaxAgeSeconds > freshness.maxMaxAgeSeconds) {
    throw new ConfigurationError('jwks.invalid_policy', 'minMaxAgeSeconds must not exceed maxMaxAgeSeconds')
  }
  return {
    freshness,
    cooldownMs: seconds(options.unknownKidCooldownSeconds, 30, 'unknownKidCooldownSeconds') * 1000,
    staleMs: seconds(options.staleIfErrorSeconds, 300, 'staleIfErrorSeconds') * 1000,
    backoffMs: seconds(options.failureBackoffSeconds, 5, 'failureBackoffSeconds') * 1000,
    limits: {
      maxBytes: positiveInteger(options.maxDocumentBytes, DEFAULT_MAX_JWKS_BYTES, 'maxDocumentBytes'),
      maxKeys: positiveInteger(options.maxKeys, 128, 'maxKeys'),
    },
    negativeCacheSize: positiveInteger(options.negativeCacheSize, 1024, 'negativeCacheSize'),
  }
}
