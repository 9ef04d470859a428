import { ConfigurationError } from '@portcullis/core/errors'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose'

/** The signing algorithms the key ring accepts (never HS*, never `none`). */
export type SigningAlgorithm = 'ES256' | 'EdDSA' | 'RS256' | 'PS256'

/** A private signing key as a JWK (`d` present), with its `alg`; `kid` is derived when absent. */
export type SigningJwk = JWK & { readonly alg?: string }

/** The validated key ring, in the shape oidc-provider's `jwks` option takes. */
export interface SigningKeyRing {
  readonly keys: readonly (JWK & { kid: string; alg: SigningAlgorithm; use: 'sig' })[]
  /** The first key's algorithm and id: it signs every token. */
  readonly alg: SigningAlgorithm
  readonly kid: string
}

const ALGORITHMS: readonly SigningAlgorithm[] = ['ES256', 'EdDSA', 'RS256', 'PS256']

const fail = (index: number, message: string): never => {
  throw new ConfigurationError('authorization_server.invalid_signing_key', message, {
    option: `createAuthorizationServer.signingKeys[${index}]`,
  })
}

function algorithmOf(jwk: SigningJwk, index: number): SigningAlgorithm {
  const alg = jwk.alg ?? (jwk.kty === 'EC' ? 'ES256' : jwk.kty === 'OKP' ? 'EdDSA' : undefined)
  if (alg === undefined || !(ALGORITHMS as readonly string[]).includes(alg)) {
    return fail(index, 'a signing key must be ES256 (P-256), EdDSA (Ed25519), RS256 or PS256')
  }
  const shape =
    (alg === 'ES256' && jwk.kty === 'EC' && jwk.crv === 'P-256') ||
    (alg === 'EdDSA' && jwk.kty === 'OKP' && jwk.crv === 'Ed25519') ||
    ((alg === 'RS256' || alg === 'PS256') &&
      jwk.kty === 'RSA' &&
      typeof jwk.n === 'string' &&
      jwk.n.length >= 342)
  if (!shape) fail(index, `the key does not fit ${alg} (RSA keys must be at least 2048 bits)`)
  return alg as SigningAlgorithm
}

/** Validates the ring: private asymmetric keys of allowed algorithms with distinct ids. */
export async function signingKeyRing(keys: readonly SigningJwk[]): Promise<SigningKeyRing> {
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new ConfigurationError(
      'authorization_server.invalid_signing_key',
      'signingKeys must hold at least one key',
      {
        option: 'createAuthorizationServer.signingKeys',
      },
    )
  }
  const out: SigningKeyRing['keys'][number][] = []
  for (const [index, jwk] of keys.entries()) {
    if (typeof jwk !== 'object' || jwk === null) fail(index, 'a signing key must be a JWK object')
    if (typeof jwk.d !== 'string' || jwk.d.length === 0) fail(index, 'a signing key must be a private JWK')
    if (jwk.use !== undefined && jwk.use !== 'sig') fail(index, 'a signing key must have use "sig"')
    const alg = algorithmOf(jwk, index)
    const kid =
      typeof jwk.kid === 'string' && jwk.kid.length > 0 ? jwk.kid : await calculateJwkThumbprint(jwk)
    if (out.some((key) => key.kid === kid)) fail(index, 'signing keys must have distinct kid values')
    out.push({ ...jwk, kid, alg, use: 'sig' })
  }
  const first = out[0] as SigningKeyRing['keys'][number]
  return { keys: out, alg: first.alg, kid: first.kid }
}

/**
 * A new private signing JWK (with `alg`, `use` and a thumbprint `kid`) for the key ring. Rotation: add the
 * new key second and deploy; move it first and deploy; drop the old key once the longest access token
 * lifetime has passed.
 */
export async function generateSigningKey(alg: SigningAlgorithm = 'ES256'): Promise<SigningJwk> {
  if (!ALGORITHMS.includes(alg)) {
    throw new ConfigurationError('authorization_server.invalid_signing_key', 'unsupported signing algorithm')
  }
  const { privateKey } = await generateKeyPair(alg, {
    extractable: true,
    ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}),
    ...(alg === 'RS256' || alg === 'PS256' ? { modulusLength: 2048 } : {}),
  })
  const jwk = await exportJWK(privateKey)
  return { ...jwk, alg, use: 'sig', kid: await calculateJwkThumbprint(jwk) }
}
