export type { OAuthAccessTokensOptions } from './access-token-mechanism.js'
export { OAUTH_ACCESS_TOKEN_CREDENTIAL, oauthAccessTokens } from './access-token-mechanism.js'
export { OAUTH_ACCESS_TOKENS_INVALID } from './access-token-options.js'
export { validateServerChange } from './change.js'
export type { OAuthServerEntryIndex } from './entries.js'
export {
  checkedEntry,
  grantSummaryOf,
  indexOf as oauthServerEntryIndex,
  isEntryKey as isOAuthServerEntryKey,
} from './entries.js'
export type { MemoryOAuthServerStoreOptions } from './memory-store.js'
export { MemoryOAuthServerStore } from './memory-store.js'
export type {
  OAuthGrantStatus,
  OAuthGrantSummary,
  OAuthGrants,
  OAuthServerChange,
  OAuthServerConsumeOutcome,
  OAuthServerEntry,
  OAuthServerEntryKey,
  OAuthServerStore,
  StoredOAuthServerEntry,
} from './port.js'
