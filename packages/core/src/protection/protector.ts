import { PortcullisError } from '../errors/portcullis-error.js'

/** A protected secret: the version label of the key that sealed it and the sealed bytes. */
export interface ProtectedEnvelope {
  readonly keyVersion: string
  /** nonce || ciphertext || tag for the AES-GCM implementation; opaque to callers. */
  readonly ciphertext: Uint8Array
}

/**
 * Port: keeps PKCE verifiers, nonces and provider tokens out of storage in plaintext.
 *
 * `associatedData` binds an envelope to its purpose and record identity (callers build it with
 * `associatedData(purpose, ...parts)`); opening with any other associated data fails. Every failure to
 * open (unknown version, truncation, tampering, wrong key or wrong associated data) throws one error type,
 * `ProtectedEnvelopeError`, whose message never says which check failed.
 */
export interface OAuthTransactionProtector {
  /** Version label of the key new envelopes are sealed under. */
  readonly activeKeyVersion: string
  protect(plaintext: Uint8Array, associatedData: Uint8Array): Promise<ProtectedEnvelope>
  unprotect(envelope: ProtectedEnvelope, associatedData: Uint8Array): Promise<Uint8Array>
}

/** The single error for an envelope that cannot be opened. */
export class ProtectedEnvelopeError extends PortcullisError {
  constructor(options: { cause?: unknown } = {}) {
    super('protection.envelope_rejected', 'invalid-input', 'protected envelope could not be opened', options)
  }
}
