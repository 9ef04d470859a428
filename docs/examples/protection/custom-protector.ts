// A custom protector around a key-management service. The port is two async methods and a version label;
// every failure to open must surface as ProtectedEnvelopeError.
import {
  type OAuthTransactionProtector,
  type ProtectedEnvelope,
  ProtectedEnvelopeError,
} from '@portcullis/core/protection'

/** The slice of a KMS client this needs (e.g. a cloud KMS with AEAD encrypt/decrypt). */
export interface Kms {
  encrypt(keyName: string, plaintext: Uint8Array, aad: Uint8Array): Promise<Uint8Array>
  decrypt(keyName: string, ciphertext: Uint8Array, aad: Uint8Array): Promise<Uint8Array>
}

export class KmsProtector implements OAuthTransactionProtector {
  readonly activeKeyVersion: string

  /** `keys` maps version labels to KMS key names; the first entry is the active one. */
  constructor(
    private readonly kms: Kms,
    private readonly keys: ReadonlyMap<string, string>,
  ) {
    const first = [...keys.keys()][0]
    if (first === undefined) throw new Error('at least one key is required')
    this.activeKeyVersion = first
  }

  async protect(plaintext: Uint8Array, associatedData: Uint8Array): Promise<ProtectedEnvelope> {
    const keyName = this.keys.get(this.activeKeyVersion) ?? ''
    // Bind the version label too, so an envelope cannot be relabelled onto another key.
    const ciphertext = await this.kms.encrypt(
      keyName,
      plaintext,
      this.#aad(this.activeKeyVersion, associatedData),
    )
    return { keyVersion: this.activeKeyVersion, ciphertext }
  }

  async unprotect(envelope: ProtectedEnvelope, associatedData: Uint8Array): Promise<Uint8Array> {
    const keyName = typeof envelope?.keyVersion === 'string' ? this.keys.get(envelope.keyVersion) : undefined
    if (keyName === undefined || !(envelope.ciphertext instanceof Uint8Array))
      throw new ProtectedEnvelopeError()
    try {
      return await this.kms.decrypt(
        keyName,
        envelope.ciphertext,
        this.#aad(envelope.keyVersion, associatedData),
      )
    } catch (cause) {
      throw new ProtectedEnvelopeError({ cause })
    }
  }

  #aad(version: string, associatedData: Uint8Array): Uint8Array {
    const label = new TextEncoder().encode(version)
    const out = new Uint8Array(1 + label.byteLength + associatedData.byteLength)
    out[0] = label.byteLength
    out.set(label, 1)
    out.set(associatedData, 1 + label.byteLength)
    return out
  }
}
