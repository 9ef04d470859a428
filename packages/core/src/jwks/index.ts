export type { CachedJWKSProviderOptions, JWKSProviderStats } from './cached-jwks-provider.js'
export { CachedJWKSProvider } from './cached-jwks-provider.js'
export { JWKSError } from './jwks-error.js'
export type { FetchFunction, FetchJWKSFetcherOptions, JWKSFetcher, JWKSFetchResult } from './jwks-fetcher.js'
export { createFetchJWKSFetcher } from './jwks-fetcher.js'
export type {
  JWKSAlgorithm,
  JWKSKeyRequest,
  JWKSKeySelection,
  JWKSProvider,
  JWKSSource,
  VerificationKey,
} from './jwks-provider.js'
export { JWKS_ALGORITHMS } from './jwks-provider.js'
