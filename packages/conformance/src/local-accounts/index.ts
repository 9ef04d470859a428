export type {
  RateLimitStoreFactory,
  RateLimitStoreFixture,
  RefreshTokenStoreFactory,
  RefreshTokenStoreFixture,
  SessionStoreFactory,
  SessionStoreFixture,
  StoreFixture,
} from './fixture.js'
export {
  assertRateLimitStoreConformance,
  assertRefreshTokenStoreConformance,
  assertSessionStoreConformance,
  rateLimitStoreSuite,
  refreshTokenStoreSuite,
  sessionStoreSuite,
} from './suites.js'
