// OAuth accounts: exact identity linking, the encrypted token vault, refresh and revocation.
export type { DrainReport, DrainRevocationRetriesOptions } from './drain.js'
export { drainRevocationRetries } from './drain.js'
export type { AccountLinkConflict, OAuthAccountErrorCode } from './errors.js'
export { AccountLinkError, OAuthAccountError, OAuthAccountErrorCodes } from './errors.js'
export type { InstantInput } from './input.js'
export { requireBoundedInteger, requireId, requireVersion } from './input.js'
export type { OAuthVaultInspector } from './inspector.js'
export type { MemoryOAuthAccountStoreOptions } from './memory-store.js'
export { inspectMemoryOAuthAccountStore, MemoryOAuthAccountStore } from './memory-store.js'
export type {
  OAuthAccountDirectory,
  OAuthAccountStore,
  OAuthIdentityLinks,
  OAuthRevocationRetries,
  OAuthTokenVault,
} from './port.js'
export type {
  AccountRecord,
  ClaimedRevocationRetry,
  LinkedProviderAccount,
  LinkOutcome,
  OAuthLoginOutcome,
  ProviderGrant,
  ProviderGrantInput,
  ProviderIdentity,
  ProviderTokenReference,
  RevocationTokenType,
  ScopeUpgradeOutcome,
  StoredProviderTokens,
  UnlinkOutcome,
} from './records.js'
export type {
  OAuthVaultReencryptionReport,
  ReencryptOAuthVaultOptions,
  UnreadableVaultEnvelope,
} from './reencryption.js'
export { reencryptOAuthVault } from './reencryption.js'
export type {
  ListStaleEnvelopesRequest,
  OAuthVaultReencryption,
  RewriteEnvelopeRequest,
  StaleVaultEnvelope,
} from './reencryption-port.js'
// For store implementations of OAuthVaultReencryption: the same request checks and envelope comparison.
export { requireEnvelopeRewrite, requireStaleEnvelopeListing, sameEnvelope } from './reencryption-port.js'
// For store implementations: the vault codec and the input checks every store applies, so a durable
// store seals, binds and validates exactly as the memory store does.
export {
  optionalOutbox,
  optionalTokenSet,
  requireFailedTokenTypes,
  requireGrant,
  requireIdentity,
  requireNow,
  requireTokenSet,
} from './request-input.js'
export type { OAuthAccountServiceOptions, RefreshOutcome, RevokeOutcome } from './service.js'
export { OAuthAccountService } from './service.js'
export type { TokenEndpointClient, TokenEndpointTokens, TokenRefreshResult } from './token-endpoint.js'
export type { ProviderTokenSetInit } from './token-set.js'
export { ProviderTokenSet } from './token-set.js'
export {
  decodeTokens,
  encodeTokens,
  openTokens,
  retryAssociatedData,
  sealTokens,
  vaultAssociatedData,
} from './vault-codec.js'
