import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import type {
  JWKSAlgorithm,
  JWKSKeyRequest,
  JWKSKeySelection,
  JWKSProvider,
  JWKSSource,
} from '../../jwks/jwks-provider.js'
import { validateJWKSSource } from '../../jwks/jwks-source.js'
import { LocalSigningKeyRing } from './signing-key-ring.js'

/** Options of `LocalJWKSProvider`. */
export interface LocalJWKSProviderOptions {
  readonly ring: LocalSigningKeyRing
  /** The local token issuer (the `iss` of local access tokens). */
  readonly issuer: string
  /** The URL where the ring's JWKS document is published (the verifier pins it; nothing is fetched). */
  readonly jwksUri: string
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number
  /** Accept an `http://` JWKS URL on 127.0.0.1, localhost or [::1] (local development). Default false. */
  readonly allowInsecureLoopback?: boolean
}

const OPTIONS: OptionsShape<LocalJWKSProviderOptions> = {
  ring: { required: true, kind: 'object', code: 'local.invalid_config' },
  issuer: { required: true, kind: 'string', code: 'jwks.invalid_source' },
  jwksUri: { required: true, kind: 'string', code: 'jwks.insecure_uri' },
  clock: { kind: 'function' },
  allowInsecureLoopback: { kind: 'boolean' },
}

/**
 * A `JWKSProvider` answered from a `LocalSigningKeyRing` in process, so the workload-JWT verifier checks
 * local access tokens with no HTTP round trip. It serves exactly one source, its own `(issuer, jwksUri)`:
 * registering another is a `ConfigurationError`, and a key request for another source, for an algorithm
 * nobody registered, for an unknown `kid`, or for a retired key past its window is answered `invalid`.
 */
export class LocalJWKSProvider implements JWKSProvider {
  readonly #ring: LocalSigningKeyRing
  readonly #issuer: string
  readonly #jwksUri: string
  readonly #clock: () => number
  readonly #allowInsecureLoopback: boolean
  readonly #algorithms = new Set<JWKSAlgorithm>()
  #closed = false

  constructor(options: LocalJWKSProviderOptions) {
    readOptions(options, 'LocalJWKSProvider', OPTIONS)
    if (!(options.ring instanceof LocalSigningKeyRing)) {
      throw new ConfigurationError('local.invalid_config', 'ring must be a LocalSigningKeyRing')
    }
    this.#allowInsecureLoopback = options.allowInsecureLoopback === true
    // Validates the pinned pair with the same rules as any JWKS source (https, no credentials, ...).
    validateJWKSSource(
      { issuer: options.issuer, jwksUri: options.jwksUri, algorithms: ['EdDSA'] },
      this.#allowInsecureLoopback,
    )
    this.#ring = options.ring
    this.#issuer = options.issuer
    this.#jwksUri = options.jwksUri
    this.#clock = options.clock ?? Date.now
  }

  register(source: JWKSSource): void {
    if (this.#closed) throw new ConfigurationError('jwks.closed', 'JWKS provider is closed')
    const checked = validateJWKSSource(source, this.#allowInsecureLoopback)
    if (checked.issuer !== this.#issuer || checked.jwksUri !== this.#jwksUri) {
      throw new ConfigurationError(
        'local.jwks_foreign_source',
        'the local JWKS provider serves only its own issuer and JWKS URL',
      )
    }
    for (const algorithm of checked.algorithms) this.#algorithms.add(algorithm)
  }

  async selectKey(request: JWKSKeyRequest): Promise<JWKSKeySelection> {
    if (this.#closed) return { kind: 'unavailable', reason: 'jwks.closed' }
    if (request.issuer !== this.#issuer || request.jwksUri !== this.#jwksUri) {
      return { kind: 'invalid', reason: 'jwks.unregistered_source' }
    }
    if (!this.#algorithms.has(request.alg)) return { kind: 'invalid', reason: 'jwks.algorithm_not_allowed' }
    const key = this.#ring.verificationKey(request.kid, request.alg, new Date(this.#clock()))
    return key === undefined ? { kind: 'invalid', reason: 'jwks.unknown_key' } : { kind: 'key', key }
  }

  async warmup(): Promise<void> {}

  async close(): Promise<void> {
    this.#closed = true
  }
}
