import { inspect } from 'node:util'
import {
  CompactSign,
  type CryptoKey,
  calculateJwkThumbprint,
  compactVerify,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
} from 'jose'
import { type OptionsShape, readOptions } from '../../errors/options.js'
import type { VerificationKey } from '../../jwks/jwks-provider.js'
import { LocalAccountError } from '../errors.js'

/** Algorithms a local signing key may use: Ed25519 (`EdDSA`, the default) or P-256 (`ES256`). */
export type LocalSigningAlgorithm = 'EdDSA' | 'ES256'

/** A public signing key as published in the JWKS document: public members only, with kid, alg and use. */
export interface LocalPublicJWK {
  readonly kty: 'OKP' | 'EC'
  readonly crv: 'Ed25519' | 'P-256'
  readonly x: string
  readonly y?: string
  readonly kid: string
  readonly alg: LocalSigningAlgorithm
  readonly use: 'sig'
}

/** A private signing key as exported for a secrets file or secret store (`d` is the private part). */
export interface LocalPrivateJWK extends LocalPublicJWK {
  readonly d: string
}

const KID = /^[A-Za-z0-9._~-]{1,128}$/
const CURVES: Readonly<Record<LocalSigningAlgorithm, { kty: 'OKP' | 'EC'; crv: 'Ed25519' | 'P-256' }>> = {
  EdDSA: { kty: 'OKP', crv: 'Ed25519' },
  ES256: { kty: 'EC', crv: 'P-256' },
}
const SELF_TEST = new TextEncoder().encode('portcullis-local-signing-key-self-test')

const badKey = (message: string, cause?: unknown): LocalAccountError =>
  new LocalAccountError('local.invalid_signing_key', message, cause === undefined ? {} : { cause })

function checkAlgorithm(alg: unknown): LocalSigningAlgorithm {
  if (alg !== 'EdDSA' && alg !== 'ES256') throw badKey('local signing keys use EdDSA (Ed25519) or ES256')
  return alg
}

function publicPart(jwk: JWK, kid: string, alg: LocalSigningAlgorithm): LocalPublicJWK {
  const { kty, crv } = CURVES[alg]
  if (jwk.kty !== kty || jwk.crv !== crv || typeof jwk.x !== 'string') {
    throw badKey(`a ${alg} key must be a ${kty} ${crv} JWK`)
  }
  if (kty === 'EC' && typeof jwk.y !== 'string') throw badKey('an ES256 key needs a y coordinate')
  return Object.freeze({
    kty,
    crv,
    x: jwk.x,
    ...(kty === 'EC' ? { y: jwk.y as string } : {}),
    kid,
    alg,
    use: 'sig' as const,
  })
}

/**
 * One asymmetric key that signs local access tokens. The private part never leaves it except through
 * `exportPrivateJwk()`, called on purpose to write a secrets file: `toJSON`, `toString` and `inspect` show
 * only `kid`, `alg` and `createdAt`.
 */
export class LocalSigningKey {
  /** The key id in every token header and in the JWKS document. */
  readonly kid: string
  readonly alg: LocalSigningAlgorithm
  readonly createdAt: Date
  /** The public key for the in-process verifier, imported once. */
  readonly verificationKey: VerificationKey
  /** The public JWK as published. */
  readonly publicJwk: LocalPublicJWK
  readonly #privateKey: CryptoKey
  readonly #privateJwk: LocalPrivateJWK

  private constructor(
    publicJwk: LocalPublicJWK,
    privateJwk: LocalPrivateJWK,
    privateKey: CryptoKey,
    publicKey: CryptoKey,
    createdAt: Date,
  ) {
    this.kid = publicJwk.kid
    this.alg = publicJwk.alg
    this.createdAt = new Date(createdAt.getTime())
    this.publicJwk = publicJwk
    this.verificationKey = Object.freeze({ kid: this.kid, alg: this.alg, key: publicKey })
    this.#privateKey = privateKey
    this.#privateJwk = privateJwk
  }

  /** @internal Builds a key from a private JWK; use `generateLocalSigningKey` / `importLocalSigningKey`. */
  static async fromPrivateJwk(jwk: JWK, kid: string | undefined, createdAt: Date): Promise<LocalSigningKey> {
    if (typeof jwk !== 'object' || jwk === null) throw badKey('signing key must be a JWK object')
    const alg = checkAlgorithm(
      jwk.alg ?? (jwk.kty === 'OKP' ? 'EdDSA' : jwk.kty === 'EC' ? 'ES256' : undefined),
    )
    if (typeof jwk.d !== 'string' || jwk.d === '') throw badKey('signing key JWK has no private part')
    if (jwk.use !== undefined && jwk.use !== 'sig') throw badKey('signing key JWK must have use "sig"')
    if (!(createdAt instanceof Date) || Number.isNaN(createdAt.getTime())) {
      throw new LocalAccountError('local.invalid_input', 'createdAt must be a valid Date')
    }
    const material = publicPart(jwk, 'pending', alg)
    const { kid: _pending, alg: _alg, use: _use, ...thumbprintInput } = material
    const chosenKid = kid ?? jwk.kid ?? (await calculateJwkThumbprint(thumbprintInput, 'sha256'))
    if (typeof chosenKid !== 'string' || !KID.test(chosenKid)) {
      throw badKey('kid must be 1 to 128 characters of [A-Za-z0-9._~-]')
    }
    const publicJwk = publicPart(jwk, chosenKid, alg)
    const privateJwk: LocalPrivateJWK = Object.freeze({ ...publicJwk, d: jwk.d })
    let privateKey: CryptoKey
    let publicKey: CryptoKey
    try {
      privateKey = (await importJWK({ ...privateJwk, key_ops: ['sign'] }, alg)) as CryptoKey
      publicKey = (await importJWK({ ...publicJwk, key_ops: ['verify'] }, alg)) as CryptoKey
      // A JWK whose public coordinates do not belong to `d` would sign tokens nobody can verify.
      const probe = await new CompactSign(SELF_TEST).setProtectedHeader({ alg }).sign(privateKey)
      await compactVerify(probe, publicKey, { algorithms: [alg] })
    } catch (error) {
      throw badKey('signing key JWK could not be imported or its public part does not match', error)
    }
    return new LocalSigningKey(publicJwk, privateJwk, privateKey, publicKey, createdAt)
  }

  /** The private JWK (with `d`), for a secrets file or secret store. Treat the result as a secret. */
  exportPrivateJwk(): LocalPrivateJWK {
    return { ...this.#privateJwk }
  }

  /** @internal Signs a compact JWS with this key (`alg` and `kid` set here). Used by `issueAccessToken`. */
  sign(payload: Uint8Array, typ: string): Promise<string> {
    return new CompactSign(payload)
      .setProtectedHeader({ alg: this.alg, kid: this.kid, typ })
      .sign(this.#privateKey)
  }

  /** Only public, non-secret facts. */
  toJSON(): { kid: string; alg: LocalSigningAlgorithm; createdAt: string } {
    return { kid: this.kid, alg: this.alg, createdAt: this.createdAt.toISOString() }
  }

  toString(): string {
    return `LocalSigningKey(${this.kid}, ${this.alg})`
  }

  [inspect.custom](): string {
    return this.toString()
  }
}

/** Options of `generateLocalSigningKey`. */
export interface GenerateLocalSigningKeyOptions {
  /** Default `EdDSA` (Ed25519). */
  readonly alg?: LocalSigningAlgorithm
  /** Default: the RFC 7638 thumbprint of the public key. */
  readonly kid?: string
  /** Creation time, recorded on the key. */
  readonly now: Date
}

const GENERATE_OPTIONS: OptionsShape<GenerateLocalSigningKeyOptions> = {
  alg: { kind: 'string', code: 'local.invalid_signing_key' },
  kid: { kind: 'string', code: 'local.invalid_signing_key' },
  now: { required: true, kind: 'object', code: 'local.invalid_input' },
}

/**
 * Generates a fresh signing key pair (EdDSA/Ed25519 by default, or ES256). Rejects with
 * `LocalAccountError` for another algorithm or a malformed kid, and `ConfigurationError` for unknown or
 * missing options.
 */
export async function generateLocalSigningKey(
  options: GenerateLocalSigningKeyOptions,
): Promise<LocalSigningKey> {
  readOptions(options, 'generateLocalSigningKey', GENERATE_OPTIONS)
  const alg = checkAlgorithm(options.alg ?? 'EdDSA')
  const pair = await generateKeyPair(alg, { extractable: true })
  const jwk = await exportJWK(pair.privateKey)
  return LocalSigningKey.fromPrivateJwk({ ...jwk, alg }, options.kid, options.now)
}

/**
 * Imports a private signing key exported by `exportPrivateJwk()` (or any Ed25519 / P-256 private JWK).
 * Checks that the public part belongs to the private one. Throws `LocalAccountError`
 * `local.invalid_signing_key` (never showing key material) for anything else.
 */
export function importLocalSigningKey(
  jwk: LocalPrivateJWK | JWK,
  options: { readonly createdAt?: Date } = {},
): Promise<LocalSigningKey> {
  return LocalSigningKey.fromPrivateJwk(jwk as JWK, undefined, options.createdAt ?? new Date(0))
}
