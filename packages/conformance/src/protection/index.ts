export type {
  EnvelopeInventoryFactory,
  EnvelopeInventoryFixture,
  EnvelopeInventoryWorld,
  InventoryContext,
} from './inventory-fixture.js'
export { assertEnvelopeInventoryConformance, envelopeInventorySuite } from './inventory-suite.js'
export type { OAuthTransactionProtectorFactory, OAuthTransactionProtectorSubject } from './protector-suite.js'
export {
  assertOAuthTransactionProtectorConformance,
  oauthTransactionProtectorSuite,
} from './protector-suite.js'
export type { OAuthTransactionStoreFactory, OAuthTransactionStoreSubject } from './store-suite.js'
export { assertOAuthTransactionStoreConformance, oauthTransactionStoreSuite } from './store-suite.js'
