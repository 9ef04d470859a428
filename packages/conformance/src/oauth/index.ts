export type { OAuthAccountStoreFactory, OAuthAccountStoreFixture } from './fixture.js'
export type {
  KeyName,
  OAuthVaultReencryptionFactory,
  OAuthVaultReencryptionFixture,
  ReencryptionContext,
} from './reencryption-fixture.js'
export { RotatingProtector } from './reencryption-fixture.js'
export {
  assertOAuthVaultReencryptionConformance,
  oauthVaultReencryptionSuite,
} from './reencryption-suite.js'
export { assertOAuthAccountStoreConformance, oauthAccountStoreSuite } from './suite.js'
