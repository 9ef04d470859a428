export type {
  OAuthServerStoreContext,
  OAuthServerStoreFactory,
  OAuthServerStoreFactoryOptions,
  OAuthServerStoreFixture,
} from './fixture.js'
export { SuiteClock as OAuthServerSuiteClock } from './fixture.js'
export { assertOAuthServerStoreConformance, oauthServerStoreSuite } from './suite.js'
