export type { AccountDirectoryFactory, AccountDirectoryFixture } from './directory-suite.js'
export {
  accountDirectoryCases,
  accountDirectorySuite,
  assertAccountDirectoryConformance,
} from './directory-suite.js'
export type { AccountStoreFactory, AccountStoreFixture } from './fixture.js'
export { accountStoreSuite, assertAccountStoreConformance } from './suite.js'
