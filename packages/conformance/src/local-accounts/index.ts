export type {
  LocalAccountStoreFactory,
  LocalAccountStoreFixture,
  RateLimitStoreFactory,
  RateLimitStoreFixture,
  RefreshTokenStoreFactory,
  RefreshTokenStoreFixture,
  SessionStoreFactory,
  SessionStoreFixture,
  StoreFixture,
} from './fixture.js'
export type { SessionStoreSuiteOptions } from './suites.js'
export {
  assertLocalAccountStoreConformance,
  assertRateLimitStoreConformance,
  assertRefreshTokenStoreConformance,
  assertSessionStoreConformance,
  localAccountStoreSuite,
  rateLimitStoreSuite,
  refreshTokenStoreSuite,
  sessionStoreSuite,
} from './suites.js'
