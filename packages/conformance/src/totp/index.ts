export type { TotpStoreFactory, TotpStoreFixture } from './fixture.js'
export type { TotpResealingFactory, TotpResealingFixture } from './resealing-cases.js'
export {
  assertTotpResealingConformance,
  assertTotpStoreConformance,
  totpResealingSuite,
  totpStoreSuite,
} from './suite.js'
