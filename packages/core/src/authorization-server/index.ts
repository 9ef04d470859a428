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
  OAuthServerConsumeOutcome,
  OAuthServerEntry,
  OAuthServerEntryKey,
  OAuthServerStore,
  StoredOAuthServerEntry,
} from './port.js'
