// Binds the core's vault codec to a protector: the same AAD, canonical encoding and errors as
// `MemoryOAuthAccountStore`, so envelopes move between the two stores (test/vault-codec-compatibility).
import { accounts } from '@portcullis/core/oauth'
import type { OAuthTransactionProtector, ProtectedEnvelope } from '@portcullis/core/protection'

export const { retryAssociatedData, vaultAssociatedData } = accounts

/** Seals tokens under `aad`; a protector failure is an `oauth.vault.unavailable` error. */
export function sealTokens(
  protector: OAuthTransactionProtector,
  tokens: accounts.ProviderTokenSet,
  aad: Uint8Array,
): Promise<ProtectedEnvelope> {
  return accounts.sealTokens((plaintext) => protector.protect(plaintext, aad), tokens)
}

/** Opens an envelope; every failure is one secret-free `oauth.vault.unavailable` error. */
export function openTokens(
  protector: OAuthTransactionProtector,
  envelope: ProtectedEnvelope,
  aad: Uint8Array,
): Promise<accounts.ProviderTokenSet> {
  return accounts.openTokens(() => protector.unprotect(envelope, aad))
}
