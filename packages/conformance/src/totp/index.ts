export type { TotpStoreFactory, TotpStoreFixture } from './fixture.js'
export { assertTotpStoreConformance, totpStoreSuite } from './suite.js'
