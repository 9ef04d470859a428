import { createPrivateKey, hkdfSync } from 'node:crypto'
import { calculateJwkThumbprint, type JWK } from 'jose'

/** The PKCS #8 wrapping of a raw Ed25519 seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

/**
 * The authorization server's signing key (Ed25519, as a private JWK with its thumbprint as `kid`),
 * derived from a secret of the secrets document and a version label: every instance of the app derives
 * the same key, and a new label gives the next key of the ring.
 */
export async function derivedSigningKey(secret: Uint8Array, version: string): Promise<JWK> {
  const seed = Buffer.from(
    hkdfSync('sha256', secret, new Uint8Array(0), `portcullis-reference|authorization-server|${version}`, 32),
  )
  const jwk = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  }).export({ format: 'jwk' }) as JWK
  return { ...jwk, alg: 'EdDSA', use: 'sig', kid: await calculateJwkThumbprint(jwk) }
}
