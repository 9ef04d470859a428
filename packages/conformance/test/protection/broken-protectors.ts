import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import {
  AESGCMOAuthTransactionProtector,
  type OAuthTransactionProtector,
  OAuthTransactionProtectorKey,
  type ProtectedEnvelope,
  ProtectedEnvelopeError,
} from '@portcullis/core/protection'
import type { OAuthTransactionProtectorSubject } from '../../src/protection/index.js'

/** The reference implementation, rotated from v1 to v2, with an impostor v2 key. */
export function aesGcmSubject(): OAuthTransactionProtectorSubject {
  const v1 = new OAuthTransactionProtectorKey('v1', randomBytes(32))
  const v2 = new OAuthTransactionProtectorKey('v2', randomBytes(32))
  return {
    protector: new AESGCMOAuthTransactionProtector({ activeKey: v2, retainedKeys: [v1] }),
    previous: new AESGCMOAuthTransactionProtector({ activeKey: v1 }),
    impostor: new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('v2', randomBytes(32)),
    }),
  }
}

/** Deliberate flaws a hand-written protector might have. */
export interface Flaws {
  /** The same nonce for every envelope. */
  readonly fixedNonce?: boolean
  /** Associated data is not passed to GCM. */
  readonly ignoreAad?: boolean
  /** Envelopes are labelled with this instead of the active version (and opened under it). */
  readonly label?: string
  /** Every known key is tried, whatever the label says. */
  readonly trialDecrypt?: boolean
  /** Failures surface as plain `Error`s instead of `ProtectedEnvelopeError`. */
  readonly untypedErrors?: boolean
  /** New envelopes are sealed under the first retained key. */
  readonly sealWithRetained?: boolean
  /** AES-CTR: encryption without authentication. */
  readonly unauthenticated?: boolean
}

/** A small hand-written AES-256-GCM protector whose flaws are switched on one at a time. */
export class HandWrittenProtector implements OAuthTransactionProtector {
  readonly activeKeyVersion: string
  readonly #keys: Map<string, Uint8Array>
  readonly #retained: string | undefined

  constructor(
    active: [string, Uint8Array],
    retained: Array<[string, Uint8Array]>,
    readonly flaws: Flaws = {},
  ) {
    this.activeKeyVersion = active[0]
    this.#keys = new Map([active, ...retained])
    this.#retained = retained[0]?.[0]
  }

  async protect(plaintext: Uint8Array, aad: Uint8Array): Promise<ProtectedEnvelope> {
    const version = this.flaws.sealWithRetained && this.#retained ? this.#retained : this.activeKeyVersion
    const key = this.#keys.get(version) ?? new Uint8Array(32)
    if (this.flaws.unauthenticated) {
      const iv = randomBytes(16)
      const cipher = createCipheriv('aes-256-ctr', key, iv)
      return {
        keyVersion: version,
        ciphertext: Buffer.concat([iv, cipher.update(plaintext), cipher.final()]),
      }
    }
    const nonce = this.flaws.fixedNonce ? Buffer.alloc(12, 7) : randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', key, nonce)
    if (!this.flaws.ignoreAad) cipher.setAAD(aad)
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
    const label = this.flaws.label ?? version
    return { keyVersion: label, ciphertext: Buffer.concat([nonce, body, cipher.getAuthTag()]) }
  }

  async unprotect(envelope: ProtectedEnvelope, aad: Uint8Array): Promise<Uint8Array> {
    try {
      const relabelled = this.flaws.label !== undefined && envelope.keyVersion === this.flaws.label
      const version = relabelled ? this.activeKeyVersion : envelope.keyVersion
      const candidates = this.flaws.trialDecrypt ? [...this.#keys.values()] : [this.#keys.get(version)]
      for (const key of candidates) {
        if (key === undefined) continue
        try {
          return this.#open(key, envelope.ciphertext, aad)
        } catch {}
      }
      throw new Error('no key opened the envelope')
    } catch (cause) {
      if (this.flaws.untypedErrors) throw new Error('decryption failed')
      throw new ProtectedEnvelopeError({ cause })
    }
  }

  #open(key: Uint8Array, ciphertext: Uint8Array, aad: Uint8Array): Uint8Array {
    if (!(ciphertext instanceof Uint8Array)) throw new TypeError('ciphertext')
    if (this.flaws.unauthenticated) {
      const decipher = createDecipheriv('aes-256-ctr', key, ciphertext.subarray(0, 16))
      return Buffer.concat([decipher.update(ciphertext.subarray(16)), decipher.final()])
    }
    if (ciphertext.byteLength < 28) throw new RangeError('short')
    const decipher = createDecipheriv('aes-256-gcm', key, ciphertext.subarray(0, 12))
    if (!this.flaws.ignoreAad) decipher.setAAD(aad)
    decipher.setAuthTag(ciphertext.subarray(ciphertext.byteLength - 16))
    return Buffer.concat([
      decipher.update(ciphertext.subarray(12, ciphertext.byteLength - 16)),
      decipher.final(),
    ])
  }
}

/** A subject built from the hand-written protector with the given flaws. */
export function handWrittenSubject(flaws: Flaws = {}): OAuthTransactionProtectorSubject {
  const v1: [string, Uint8Array] = ['v1', randomBytes(32)]
  const v2: [string, Uint8Array] = ['v2', randomBytes(32)]
  return {
    protector: new HandWrittenProtector(v2, [v1], flaws),
    previous: new HandWrittenProtector(v1, [], flaws),
    impostor: new HandWrittenProtector(['v2', randomBytes(32)], [], flaws),
  }
}
