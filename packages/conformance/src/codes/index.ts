export type { OneTimeCodeStoreFactory, OneTimeCodeStoreFixture } from './fixture.js'
export { assertOneTimeCodeStoreConformance, oneTimeCodeStoreSuite } from './suite.js'
