export {
  OAuthTransactionInvalidError,
  OAuthTransactionStoreError,
  OAuthTransactionUnavailableError,
} from './errors.js'
export type { MemoryOAuthTransactionStoreOptions } from './memory-store.js'
export { MemoryOAuthTransactionStore } from './memory-store.js'
export { PKCE_METHOD, pkceS256Challenge } from './pkce.js'
export type { OAuthRedirectPolicyOptions } from './redirect-policy.js'
export { OAuthRedirectPolicy } from './redirect-policy.js'
export type { SealedOAuthTransaction } from './sealing.js'
export { openOAuthTransaction, sealOAuthTransaction } from './sealing.js'
export type { ConsumeOAuthTransactionInput, OAuthTransactionServiceOptions } from './service.js'
export { OAuthTransactionService } from './service.js'
export type { StartOAuthTransactionInput } from './start.js'
export { OAuthTransactionStart } from './start.js'
export type { OAuthTransactionStore } from './store.js'
export type {
  OAuthOperation,
  OAuthTransactionFields,
  OAuthTransactionInit,
  OAuthTransactionKey,
} from './transaction.js'
export {
  MAX_TRANSACTION_LIFETIME_MS,
  OAUTH_OPERATIONS,
  OAuthTransaction,
  TRANSACTION_DIGEST_BYTES,
} from './transaction.js'
