import { createCipheriv, createDecipheriv, type KeyObject, timingSafeEqual } from 'node:crypto'
import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError, InvalidInputError, PortcullisError } from '../errors/portcullis-error.js'
import { associatedData, MAX_ASSOCIATED_DATA_BYTES } from './associated-data.js'
import { keyObjectOf, type OAuthTransactionProtectorKey } from './key.js'
import { pooledNonceSource } from './nonce-source.js'
import {
  type OAuthTransactionProtector,
  type ProtectedEnvelope,
  ProtectedEnvelopeError,
} from './protector.js'

export const AES_GCM_NONCE_BYTES = 12
export const AES_GCM_TAG_BYTES = 16
/** Largest secret the protector seals; provider tokens are far smaller. */
export const MAX_PLAINTEXT_BYTES = 64 * 1024

const ALGORITHM = 'aes-256-gcm'
const AAD_PURPOSE = 'portcullis.protector.aes-256-gcm.v1'
const EMPTY = new Uint8Array(0)

export interface AESGCMProtectorOptions {
  /** The key every new envelope is sealed under. */
  readonly activeKey: OAuthTransactionProtectorKey
  /** Earlier keys, kept so envelopes sealed under them still open; they never seal. */
  readonly retainedKeys?: readonly OAuthTransactionProtectorKey[]
  /** Source of nonces; defaults to the system CSPRNG (drawn in batches). Injected only by tests. */
  readonly randomBytes?: (size: number) => Uint8Array
}

const PROTECTOR_OPTIONS: OptionsShape<AESGCMProtectorOptions> = {
  activeKey: { required: true, kind: 'object', code: 'protection.active_key_missing' },
  retainedKeys: { kind: 'array', code: 'protection.retained_keys_invalid' },
  randomBytes: { kind: 'function', code: 'protection.random_invalid' },
}

/** Randomness failed or returned something other than the requested bytes. */
export class ProtectorEntropyError extends PortcullisError {
  constructor(options: { cause?: unknown } = {}) {
    super('protection.entropy_unavailable', 'unavailable', 'protector could not draw a nonce', options)
  }
}

interface KeySlot {
  readonly version: string
  readonly key: KeyObject
  /** `associatedData(purpose, version)`; the caller's AAD is appended to it as one more part. */
  readonly aadPrefix: Uint8Array
}

function slotFor(key: OAuthTransactionProtectorKey): KeySlot {
  const prefix = associatedData(AAD_PURPOSE, key.version)
  return { version: key.version, key: keyObjectOf(key), aadPrefix: prefix }
}

/** The caller's AAD as the last length-prefixed part after the protector's own purpose and key version. */
function effectiveAad(slot: KeySlot, callerAad: Uint8Array): Uint8Array {
  // A short-lived internal buffer, fully overwritten: the pooled, non-zeroed allocation is safe here.
  const prefix = slot.aadPrefix.byteLength
  const out = Buffer.allocUnsafe(prefix + 4 + callerAad.byteLength)
  out.set(slot.aadPrefix, 0)
  out.writeUInt32BE(callerAad.byteLength, prefix)
  out.set(callerAad, prefix + 4)
  return out
}

function sameMaterial(a: KeyObject, b: KeyObject): boolean {
  return timingSafeEqual(a.export(), b.export())
}

/**
 * AES-256-GCM implementation of `OAuthTransactionProtector` with key rotation.
 *
 * Envelope bytes are `nonce(12) || ciphertext || tag(16)`; the key version travels beside them and is
 * authenticated, because the GCM associated data is `associatedData('portcullis.protector.aes-256-gcm.v1',
 * keyVersion, callerAssociatedData)`. Relabelling an envelope therefore fails even across keys.
 */
export class AESGCMOAuthTransactionProtector implements OAuthTransactionProtector {
  readonly activeKeyVersion: string
  /** Every version this protector can open, active first. */
  readonly keyVersions: readonly string[]
  readonly #active: KeySlot
  readonly #slots: ReadonlyMap<string, KeySlot>
  readonly #random: () => Uint8Array

  constructor(options: AESGCMProtectorOptions) {
    readOptions(options, 'AESGCMOAuthTransactionProtector', PROTECTOR_OPTIONS)
    const retained = options.retainedKeys ?? []
    if (!Array.isArray(retained)) {
      throw new ConfigurationError(
        'protection.retained_keys_invalid',
        'retainedKeys must be an array of keys',
      )
    }
    const slots = new Map<string, KeySlot>()
    for (const key of [options.activeKey, ...retained]) {
      const slot = slotFor(key)
      if (slots.has(slot.version)) {
        throw new ConfigurationError(
          'protection.key_duplicate_version',
          `key version ${slot.version} is configured twice`,
        )
      }
      for (const other of slots.values()) {
        if (sameMaterial(other.key, slot.key)) {
          throw new ConfigurationError(
            'protection.key_reused',
            `key versions ${other.version} and ${slot.version} share the same key material`,
          )
        }
      }
      slots.set(slot.version, slot)
    }
    const injected = options.randomBytes
    if (injected !== undefined && typeof injected !== 'function') {
      throw new ConfigurationError('protection.random_invalid', 'randomBytes must be a function')
    }
    const active = slots.get(options.activeKey.version)
    if (active === undefined)
      throw new ConfigurationError('protection.active_key_missing', 'an activeKey is required')
    this.#slots = slots
    this.#active = active
    this.#random =
      injected === undefined ? pooledNonceSource(AES_GCM_NONCE_BYTES) : () => injected(AES_GCM_NONCE_BYTES)
    this.activeKeyVersion = this.#active.version
    this.keyVersions = Object.freeze([...slots.keys()])
  }

  async protect(plaintext: Uint8Array, associatedData: Uint8Array): Promise<ProtectedEnvelope> {
    if (!(plaintext instanceof Uint8Array)) {
      throw new InvalidInputError('protection.plaintext_invalid', 'plaintext must be a Uint8Array')
    }
    if (plaintext.byteLength > MAX_PLAINTEXT_BYTES) {
      throw new InvalidInputError(
        'protection.plaintext_too_large',
        `plaintext must be at most ${MAX_PLAINTEXT_BYTES} bytes`,
      )
    }
    if (!(associatedData instanceof Uint8Array) || associatedData.byteLength === 0) {
      throw new InvalidInputError(
        'protection.associated_data_invalid',
        'associated data must be non-empty bytes',
      )
    }
    if (associatedData.byteLength > MAX_ASSOCIATED_DATA_BYTES) {
      throw new InvalidInputError('protection.associated_data_too_large', 'associated data is too large')
    }
    const nonce = this.#nonce()
    const slot = this.#active
    const cipher = createCipheriv(ALGORITHM, slot.key, nonce, { authTagLength: AES_GCM_TAG_BYTES })
    cipher.setAAD(effectiveAad(slot, associatedData))
    const body = plaintext.byteLength === 0 ? EMPTY : cipher.update(plaintext)
    const final = cipher.final()
    const tag = cipher.getAuthTag()
    // Unpooled (its ArrayBuffer holds nothing else) and fully overwritten below, so no zero-fill is needed.
    const ciphertext = new Uint8Array(
      Buffer.allocUnsafeSlow(AES_GCM_NONCE_BYTES + body.byteLength + final.byteLength + AES_GCM_TAG_BYTES)
        .buffer,
    )
    ciphertext.set(nonce, 0)
    ciphertext.set(body, AES_GCM_NONCE_BYTES)
    ciphertext.set(final, AES_GCM_NONCE_BYTES + body.byteLength)
    ciphertext.set(tag, ciphertext.byteLength - AES_GCM_TAG_BYTES)
    return Object.freeze({ keyVersion: slot.version, ciphertext })
  }

  async unprotect(envelope: ProtectedEnvelope, associatedData: Uint8Array): Promise<Uint8Array> {
    try {
      return this.#open(envelope, associatedData)
    } catch (cause) {
      throw cause instanceof ProtectedEnvelopeError ? cause : new ProtectedEnvelopeError({ cause })
    }
  }

  /**
   * Opens an envelope under whichever known key sealed it and seals the plaintext again under the active
   * key. An envelope already under the active key is verified and returned unchanged. Use it to rewrite
   * stored envelopes before dropping a retained key.
   */
  async reprotect(envelope: ProtectedEnvelope, associatedData: Uint8Array): Promise<ProtectedEnvelope> {
    const plaintext = await this.unprotect(envelope, associatedData)
    try {
      if (envelope.keyVersion === this.activeKeyVersion) return envelope
      return await this.protect(plaintext, associatedData)
    } finally {
      plaintext.fill(0)
    }
  }

  /** True when the envelope was sealed under a key other than the active one. */
  needsReprotect(envelope: ProtectedEnvelope): boolean {
    return envelope?.keyVersion !== this.activeKeyVersion
  }

  #open(envelope: ProtectedEnvelope, associatedData: Uint8Array): Uint8Array {
    const keyVersion: unknown = envelope?.keyVersion
    const ciphertext: unknown = envelope?.ciphertext
    if (typeof keyVersion !== 'string' || !(ciphertext instanceof Uint8Array))
      throw new ProtectedEnvelopeError()
    if (!(associatedData instanceof Uint8Array) || associatedData.byteLength > MAX_ASSOCIATED_DATA_BYTES) {
      throw new ProtectedEnvelopeError()
    }
    const slot = this.#slots.get(keyVersion)
    const minimum = AES_GCM_NONCE_BYTES + AES_GCM_TAG_BYTES
    if (
      slot === undefined ||
      ciphertext.byteLength < minimum ||
      ciphertext.byteLength > minimum + MAX_PLAINTEXT_BYTES
    ) {
      throw new ProtectedEnvelopeError()
    }
    const tagStart = ciphertext.byteLength - AES_GCM_TAG_BYTES
    const decipher = createDecipheriv(ALGORITHM, slot.key, ciphertext.subarray(0, AES_GCM_NONCE_BYTES), {
      authTagLength: AES_GCM_TAG_BYTES,
    })
    decipher.setAAD(effectiveAad(slot, associatedData))
    decipher.setAuthTag(ciphertext.subarray(tagStart))
    const body = decipher.update(ciphertext.subarray(AES_GCM_NONCE_BYTES, tagStart))
    const final = decipher.final()
    if (final.byteLength === 0) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
    const out = new Uint8Array(body.byteLength + final.byteLength)
    out.set(body, 0)
    out.set(final, body.byteLength)
    return out
  }

  #nonce(): Uint8Array {
    let nonce: unknown
    try {
      nonce = this.#random()
    } catch (cause) {
      throw new ProtectorEntropyError({ cause })
    }
    if (!(nonce instanceof Uint8Array) || nonce.byteLength !== AES_GCM_NONCE_BYTES)
      throw new ProtectorEntropyError()
    return nonce
  }

  toJSON(): { activeKeyVersion: string; keyVersions: readonly string[] } {
    return { activeKeyVersion: this.activeKeyVersion, keyVersions: this.keyVersions }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `AESGCMOAuthTransactionProtector { activeKeyVersion: ${JSON.stringify(this.activeKeyVersion)}, keyVersions: ${JSON.stringify(this.keyVersions)} }`
  }
}
