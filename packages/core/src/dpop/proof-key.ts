import { constants, createHash, createPublicKey, type KeyObject, verify } from 'node:crypto'
import type { JWKSAlgorithm } from '../jwks/jwks-provider.js'
import type { JsonObject } from '../workload-jwt/compact-jwt.js'

/** A proof key's RFC 7638 members (exactly those, in order) and its SHA-256 thumbprint. */
export interface PublicJwk {
  readonly members: Readonly<Record<string, string>>
  readonly thumbprint: string
}

const B64U = /^[A-Za-z0-9_-]+$/

/** The required members of each key type (RFC 7638 section 3.2), in lexicographic order. */
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
  RSA: ['e', 'kty', 'n'],
}

/** Which key type and curve each algorithm takes: an ES256 proof with an RSA key is refused. */
function fits(members: Readonly<Record<string, string>>, alg: JWKSAlgorithm): boolean {
  switch (alg) {
    case 'ES256':
      return members.kty === 'EC' && members.crv === 'P-256'
    case 'EdDSA':
      return members.kty === 'OKP' && members.crv === 'Ed25519'
    case 'RS256':
    case 'PS256':
      return members.kty === 'RSA'
  }
}

/**
 * The RFC 7638 thumbprint of a public JWK for `alg`: undefined when a required member is missing or not a
 * base64url string, or when the key type does not fit the algorithm. The key is later imported from
 * exactly these members, so the thumbprint names the key that verifies.
 */
export function thumbprintOf(jwk: JsonObject, alg: JWKSAlgorithm): PublicJwk | undefined {
  const required = typeof jwk.kty === 'string' ? REQUIRED[jwk.kty] : undefined
  if (required === undefined) return undefined
  const members: Record<string, string> = {}
  for (const name of required) {
    const value = jwk[name]
    if (typeof value !== 'string' || value.length > 2048) return undefined
    if (name !== 'kty' && name !== 'crv' && !B64U.test(value)) return undefined
    members[name] = value
  }
  if (!fits(members, alg)) return undefined
  const thumbprint = createHash('sha256').update(JSON.stringify(members)).digest('base64url')
  return { members, thumbprint }
}

/** Imported proof keys by thumbprint; bounded (cleared when full), so a flood of new keys costs memory once. */
class ProofKeyCache {
  readonly #keys = new Map<string, KeyObject | null>()

  constructor(readonly capacity: number) {}

  /** The public key, or undefined when it cannot be imported (or an RSA key shorter than 2048 bits). */
  get(jwk: PublicJwk): KeyObject | undefined {
    const cached = this.#keys.get(jwk.thumbprint)
    if (cached !== undefined) return cached ?? undefined
    let key: KeyObject | null = null
    try {
      const imported = createPublicKey({ key: { ...jwk.members }, format: 'jwk' })
      const bits = imported.asymmetricKeyDetails?.modulusLength
      if (imported.asymmetricKeyType !== 'rsa' || (bits !== undefined && bits >= 2048)) key = imported
    } catch {
      key = null
    }
    if (this.#keys.size >= this.capacity) this.#keys.clear()
    this.#keys.set(jwk.thumbprint, key)
    return key ?? undefined
  }
}

export const proofKeys = new ProofKeyCache(10_000)

/** Verifies the compact JWS `proof` with exactly `alg` and `key`. */
export function verifySignature(proof: string, alg: JWKSAlgorithm, key: KeyObject): boolean {
  const dot = proof.lastIndexOf('.')
  const data = Buffer.from(proof.slice(0, dot), 'ascii')
  const signature = Buffer.from(proof.slice(dot + 1), 'base64url')
  try {
    switch (alg) {
      case 'ES256':
        return (
          signature.length === 64 && verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature)
        )
      case 'EdDSA':
        return verify(null, data, key, signature)
      case 'RS256':
        return verify('sha256', data, key, signature)
      case 'PS256':
        return verify(
          'sha256',
          data,
          { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
          signature,
        )
    }
  } catch {
    return false
  }
}
