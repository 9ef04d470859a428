import type { OptionsShape } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { isJWKSAlgorithm, type JWKSAlgorithm, type JWKSSource } from './jwks-provider.js'

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** The keys of a `JWKSSource`; values are checked by `validateJWKSSource`, with its published codes. */
export const JWKS_SOURCE_OPTIONS: OptionsShape<JWKSSource> = {
  issuer: { required: true, kind: 'string', code: 'jwks.invalid_source' },
  jwksUri: { required: true, kind: 'string', code: 'jwks.insecure_uri' },
  algorithms: { required: true, kind: 'array', code: 'jwks.invalid_source' },
}

/**
 * Validates a source before it is pinned: a non-blank issuer, an `https:` JWKS URL without credentials or
 * fragment (plain `http:` only to a loopback host, and only when explicitly allowed for tests and local
 * development), and a non-empty list of supported asymmetric algorithms.
 */
export function validateJWKSSource(
  source: JWKSSource,
  allowInsecureLoopback: boolean,
): { issuer: string; jwksUri: string; algorithms: JWKSAlgorithm[] } {
  if (
    typeof source.issuer !== 'string' ||
    source.issuer.trim() === '' ||
    source.issuer.trim() !== source.issuer
  ) {
    throw new ConfigurationError('jwks.invalid_source', 'JWKS source issuer must be a non-blank string')
  }
  assertJWKSUri(source.jwksUri, allowInsecureLoopback)
  if (!Array.isArray(source.algorithms) || source.algorithms.length === 0) {
    throw new ConfigurationError('jwks.invalid_source', 'JWKS source needs at least one algorithm')
  }
  for (const algorithm of source.algorithms) {
    if (!isJWKSAlgorithm(algorithm)) {
      throw new ConfigurationError(
        'jwks.unsupported_algorithm',
        'JWKS algorithms are limited to EdDSA, ES256, RS256 and PS256',
      )
    }
  }
  return { issuer: source.issuer, jwksUri: source.jwksUri, algorithms: [...source.algorithms] }
}

export function assertJWKSUri(uri: string, allowInsecureLoopback: boolean): void {
  let url: URL
  try {
    url = new URL(uri)
  } catch (error) {
    throw new ConfigurationError('jwks.insecure_uri', 'JWKS URL is not a valid absolute URL', {
      cause: error,
    })
  }
  if (url.username !== '' || url.password !== '' || url.hash !== '') {
    throw new ConfigurationError('jwks.insecure_uri', 'JWKS URL must not carry credentials or a fragment')
  }
  if (url.protocol === 'https:') return
  if (url.protocol === 'http:' && allowInsecureLoopback && LOOPBACK_HOSTS.has(url.hostname)) return
  throw new ConfigurationError('jwks.insecure_uri', 'JWKS URL must use https')
}
