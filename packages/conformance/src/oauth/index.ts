export type { OAuthAccountStoreFactory, OAuthAccountStoreFixture } from './fixture.js'
export { assertOAuthAccountStoreConformance, oauthAccountStoreSuite } from './suite.js'
