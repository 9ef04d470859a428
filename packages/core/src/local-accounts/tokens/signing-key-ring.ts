import { inspect } from 'node:util'
import { importJWK, type JWK } from 'jose'
import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import type { JWKSAlgorithm, VerificationKey } from '../../jwks/jwks-provider.js'
import { LocalAccountError } from '../errors.js'
import {
  importLocalSigningKey,
  type LocalPrivateJWK,
  type LocalPublicJWK,
  LocalSigningKey,
} from './signing-key.js'

/** Options of `LocalSigningKeyRing`. */
export interface LocalSigningKeyRingOptions {
  /** The key that signs new tokens. */
  readonly active: LocalSigningKey
  /**
   * The longest access-token lifetime the ring signs (`issueAccessToken` refuses longer ones), and so how
   * long a retired key stays published. Default 3600 s, the workload-JWT verifier's default maximum.
   */
  readonly maxAccessTokenLifetimeSeconds?: number
  /** Added to the publication window, matching the verifiers' clock skew. Default 30 s. */
  readonly clockSkewSeconds?: number
}

/** A retired key: public part only (its private part is dropped at rotation), and when it stopped signing. */
export interface RetiredLocalSigningKey {
  readonly publicJwk: LocalPublicJWK
  readonly retiredAt: Date
}

/** The ring as written to a secrets file: the active private JWK and the retired public JWKs. */
export interface LocalSigningKeyRingExport {
  readonly active: LocalPrivateJWK
  readonly activeCreatedAt: string
  readonly retired: readonly { readonly jwk: LocalPublicJWK; readonly retiredAt: string }[]
}

/** The public JWKS document served at the ring's JWKS URL. */
export interface LocalJWKSDocument {
  readonly keys: readonly LocalPublicJWK[]
}

const OPTIONS: OptionsShape<LocalSigningKeyRingOptions> = {
  active: { required: true, kind: 'object', code: 'local.invalid_config' },
  maxAccessTokenLifetimeSeconds: { kind: 'number', code: 'local.invalid_config' },
  clockSkewSeconds: { kind: 'number', code: 'local.invalid_config' },
}

interface RetiredEntry {
  readonly publicJwk: LocalPublicJWK
  readonly verification: VerificationKey
  readonly retiredAt: Date
}

function seconds(
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
  name: string,
): number {
  const result = value ?? fallback
  if (!Number.isSafeInteger(result) || result < min || result > max) {
    throw new ConfigurationError('local.invalid_config', `${name} must be an integer from ${min} to ${max}`)
  }
  return result
}

function validDate(value: Date, name: string): number {
  const time = value instanceof Date ? value.getTime() : Number.NaN
  if (Number.isNaN(time)) throw new LocalAccountError('local.invalid_input', `${name} must be a valid Date`)
  return time
}

/**
 * The local token signing keys: one active private key and the retired public keys still needed to verify
 * tokens they signed. `rotate` retires the active key (dropping its private part) and keeps its public key
 * published for `maxAccessTokenLifetimeSeconds + clockSkewSeconds` after the retire time, by which every
 * token it signed has expired. Several instances must load the same ring (from the same secrets file) and
 * rotate it together; external verifiers that cache the JWKS see a new key only after their cache expires.
 */
export class LocalSigningKeyRing {
  /** The longest access-token lifetime this ring signs, in seconds. */
  readonly maxAccessTokenLifetimeSeconds: number
  readonly #windowMs: number
  #active: LocalSigningKey
  #retired: RetiredEntry[] = []

  constructor(options: LocalSigningKeyRingOptions) {
    readOptions(options, 'LocalSigningKeyRing', OPTIONS)
    if (!(options.active instanceof LocalSigningKey)) {
      throw new ConfigurationError('local.invalid_config', 'active must be a LocalSigningKey')
    }
    this.maxAccessTokenLifetimeSeconds = seconds(
      options.maxAccessTokenLifetimeSeconds,
      3600,
      1,
      7 * 86_400,
      'maxAccessTokenLifetimeSeconds',
    )
    const skew = seconds(options.clockSkewSeconds, 30, 0, 300, 'clockSkewSeconds')
    this.#windowMs = (this.maxAccessTokenLifetimeSeconds + skew) * 1000
    this.#active = options.active
  }

  /** The key that signs new tokens. */
  get active(): LocalSigningKey {
    return this.#active
  }

  /** Retired keys still held (including ones whose window has ended but were not pruned yet). */
  get retired(): readonly RetiredLocalSigningKey[] {
    return this.#retired.map(({ publicJwk, retiredAt }) => ({ publicJwk, retiredAt: new Date(retiredAt) }))
  }

  /**
   * Makes `newKey` active and retires the current one at `now`; prunes retired keys whose window ended.
   * Throws `LocalAccountError` `local.invalid_input` when `newKey` reuses a kid already in the ring.
   */
  rotate(newKey: LocalSigningKey, options: { readonly now: Date }): void {
    const now = validDate(options.now, 'now')
    if (!(newKey instanceof LocalSigningKey)) {
      throw new LocalAccountError('local.invalid_input', 'the new signing key must be a LocalSigningKey')
    }
    if (this.#kids().has(newKey.kid)) {
      throw new LocalAccountError(
        'local.invalid_input',
        'the new signing key reuses a kid already in the ring',
      )
    }
    const old = this.#active
    this.#retired.push({
      publicJwk: old.publicJwk,
      verification: old.verificationKey,
      retiredAt: new Date(now),
    })
    this.#active = newKey
    this.prune(options.now)
  }

  /** Drops retired keys whose publication window ended before `now`; returns how many were dropped. */
  prune(now: Date): number {
    const time = validDate(now, 'now')
    const before = this.#retired.length
    this.#retired = this.#retired.filter((entry) => this.#publishedAt(entry, time))
    return before - this.#retired.length
  }

  /** The public JWKS document at `now`: the active key and every retired key still in its window. */
  jwks(now: Date): LocalJWKSDocument {
    const time = validDate(now, 'now')
    const retired = this.#retired
      .filter((entry) => this.#publishedAt(entry, time))
      .map((entry) => entry.publicJwk)
    return { keys: [this.#active.publicJwk, ...retired].map((jwk) => ({ ...jwk })) }
  }

  /** The verification key for exactly `(kid, alg)` at `now`, or `undefined` (unknown, other alg, expired). */
  verificationKey(kid: string, alg: JWKSAlgorithm, now: Date): VerificationKey | undefined {
    const active = this.#active.verificationKey
    if (active.kid === kid) return active.alg === alg ? active : undefined
    const time = now.getTime()
    const entry = this.#retired.find((candidate) => candidate.publicJwk.kid === kid)
    if (entry === undefined || entry.verification.alg !== alg || !this.#publishedAt(entry, time))
      return undefined
    return entry.verification
  }

  /** The ring for a secrets file. The result holds the active private key: treat it as a secret. */
  exportPrivate(): LocalSigningKeyRingExport {
    return {
      active: this.#active.exportPrivateJwk(),
      activeCreatedAt: this.#active.createdAt.toISOString(),
      retired: this.#retired.map((entry) => ({
        jwk: { ...entry.publicJwk },
        retiredAt: entry.retiredAt.toISOString(),
      })),
    }
  }

  /** Only kids and dates, never key material. */
  toJSON(): { active: string; retired: { kid: string; retiredAt: string }[] } {
    return {
      active: this.#active.kid,
      retired: this.#retired.map((entry) => ({
        kid: entry.publicJwk.kid,
        retiredAt: entry.retiredAt.toISOString(),
      })),
    }
  }

  toString(): string {
    return `LocalSigningKeyRing(active ${this.#active.kid}, ${this.#retired.length} retired)`
  }

  [inspect.custom](): string {
    return this.toString()
  }

  #publishedAt(entry: RetiredEntry, time: number): boolean {
    return time < entry.retiredAt.getTime() + this.#windowMs
  }

  #kids(): Set<string> {
    return new Set([this.#active.kid, ...this.#retired.map((entry) => entry.publicJwk.kid)])
  }

  /** @internal Adds a retired public key when importing an exported ring. */
  async addRetired(jwk: LocalPublicJWK, retiredAt: Date): Promise<void> {
    validDate(retiredAt, 'retiredAt')
    if (typeof jwk !== 'object' || jwk === null || 'd' in jwk) {
      throw new LocalAccountError('local.invalid_signing_key', 'a retired key must be a public JWK')
    }
    const expected = jwk.alg === 'ES256' ? { kty: 'EC', crv: 'P-256' } : { kty: 'OKP', crv: 'Ed25519' }
    if (
      (jwk.alg !== 'EdDSA' && jwk.alg !== 'ES256') ||
      jwk.kty !== expected.kty ||
      jwk.crv !== expected.crv
    ) {
      throw new LocalAccountError(
        'local.invalid_signing_key',
        'a retired key must be an Ed25519 or P-256 JWK',
      )
    }
    if (typeof jwk.kid !== 'string' || this.#kids().has(jwk.kid)) {
      throw new LocalAccountError(
        'local.invalid_signing_key',
        'a retired key needs a kid not already in the ring',
      )
    }
    const publicJwk: LocalPublicJWK = Object.freeze({
      kty: jwk.kty,
      crv: jwk.crv,
      x: jwk.x,
      ...(jwk.y === undefined ? {} : { y: jwk.y }),
      kid: jwk.kid,
      alg: jwk.alg,
      use: 'sig' as const,
    })
    let key: VerificationKey['key']
    try {
      key = (await importJWK(publicJwk as JWK, jwk.alg)) as VerificationKey['key']
    } catch (error) {
      throw new LocalAccountError('local.invalid_signing_key', 'a retired key could not be imported', {
        cause: error,
      })
    }
    this.#retired.push({
      publicJwk,
      verification: Object.freeze({ kid: jwk.kid, alg: jwk.alg, key }),
      retiredAt: new Date(retiredAt),
    })
  }
}

/**
 * Rebuilds a ring from `LocalSigningKeyRing.exportPrivate()` output (for example a parsed secrets file).
 * Throws `LocalAccountError` `local.invalid_signing_key` for unusable keys and `ConfigurationError` for
 * bad options.
 */
export async function importLocalSigningKeyRing(
  exported: LocalSigningKeyRingExport,
  options: Omit<LocalSigningKeyRingOptions, 'active'> = {},
): Promise<LocalSigningKeyRing> {
  if (typeof exported !== 'object' || exported === null || !Array.isArray(exported.retired)) {
    throw new LocalAccountError(
      'local.invalid_signing_key',
      'exported key ring must have active and retired keys',
    )
  }
  const createdAt = new Date(exported.activeCreatedAt)
  const active = await importLocalSigningKey(exported.active, { createdAt })
  const ring = new LocalSigningKeyRing({ ...options, active })
  for (const entry of exported.retired) await ring.addRetired(entry.jwk, new Date(entry.retiredAt))
  return ring
}
