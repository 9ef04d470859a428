import { randomBytes } from 'node:crypto'
import {
  importLocalSigningKey,
  type LocalPrivateJWK,
  type LocalPublicJWK,
} from '@portcullis/core/local-accounts'
import { type CryptoKey, importJWK, SignJWT } from 'jose'

/**
 * The demo workload issuer. Identifiers, not URLs: they stay the same whatever port the app listens on,
 * so a token minted by the CLI works against any running instance that shares the secrets.
 */
export const DEMO_WORKLOAD_ISSUER = 'urn:portcullis:reference:demo-workload'
export const DEMO_API_AUDIENCE = 'urn:portcullis:reference:api'
/** Where the app publishes the demo issuer's public keys (relative to the app's own URL). */
export const DEMO_WORKLOAD_JWKS_PATH = '/demo-workload/jwks.json'

export interface MintRequest {
  /** The service the token names (`sub` and `client_id`). */
  readonly subject: string
  readonly scopes: readonly string[]
  readonly lifetimeSeconds: number
  readonly now?: Date
}

/**
 * Signs RFC 9068 access tokens (`typ: at+jwt`) as the demo workload issuer. It stands in for another
 * service's identity provider (a CI system, a cluster): the app verifies these tokens exactly as it would
 * verify theirs, through a pinned issuer, audience and JWKS URL.
 */
export class WorkloadSigner {
  readonly publicJwk: LocalPublicJWK
  readonly #privateKey: CryptoKey

  private constructor(publicJwk: LocalPublicJWK, privateKey: CryptoKey) {
    this.publicJwk = publicJwk
    this.#privateKey = privateKey
  }

  /** Imports the private JWK of the secrets (checking that its public part matches). */
  static async import(jwk: LocalPrivateJWK): Promise<WorkloadSigner> {
    const key = await importLocalSigningKey(jwk)
    const privateKey = (await importJWK(
      { ...key.exportPrivateJwk(), key_ops: ['sign'] },
      key.alg,
    )) as CryptoKey
    return new WorkloadSigner(key.publicJwk, privateKey)
  }

  /** The JWKS document the app publishes at `DEMO_WORKLOAD_JWKS_PATH`. */
  jwks(): { readonly keys: readonly LocalPublicJWK[] } {
    return { keys: [this.publicJwk] }
  }

  mint(request: MintRequest): Promise<string> {
    const now = Math.floor((request.now ?? new Date()).getTime() / 1000)
    return new SignJWT({ client_id: request.subject, scope: request.scopes.join(' ') })
      .setProtectedHeader({ alg: this.publicJwk.alg, kid: this.publicJwk.kid, typ: 'at+jwt' })
      .setIssuer(DEMO_WORKLOAD_ISSUER)
      .setAudience(DEMO_API_AUDIENCE)
      .setSubject(request.subject)
      .setJti(randomBytes(16).toString('base64url'))
      .setIssuedAt(now)
      .setExpirationTime(now + request.lifetimeSeconds)
      .sign(this.#privateKey)
  }

  toString(): string {
    return `WorkloadSigner(${this.publicJwk.kid})`
  }

  toJSON(): { kid: string } {
    return { kid: this.publicJwk.kid }
  }
}
