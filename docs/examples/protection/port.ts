// The protector port as protection.md shows it; the checks below fail to compile when it no longer
// matches the interfaces @portcullis/core/protection exports.
import type * as protection from '@portcullis/core/protection'

// #region port
// @portcullis/core/protection
interface ProtectedEnvelope {
  readonly keyVersion: string // label of the key that sealed it
  readonly ciphertext: Uint8Array // opaque to callers
}

interface OAuthTransactionProtector {
  readonly activeKeyVersion: string
  protect(plaintext: Uint8Array, associatedData: Uint8Array): Promise<ProtectedEnvelope>
  unprotect(envelope: ProtectedEnvelope, associatedData: Uint8Array): Promise<Uint8Array>
}
// #endregion port

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

export const envelopeAsShown: Same<ProtectedEnvelope, protection.ProtectedEnvelope> = true
export const protectorAsShown: Same<OAuthTransactionProtector, protection.OAuthTransactionProtector> = true
