export type { AccountStoreFactory, AccountStoreFixture } from './fixture.js'
export { accountStoreSuite, assertAccountStoreConformance } from './suite.js'
