export type {
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
  assertRateLimitStoreConformance,
  assertRefreshTokenStoreConformance,
  assertSessionStoreConformance,
  rateLimitStoreSuite,
  refreshTokenStoreSuite,
  sessionStoreSuite,
} from './suites.js'
