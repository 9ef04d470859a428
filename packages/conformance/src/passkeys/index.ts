export type {
  PasskeyChallengeStoreFactory,
  PasskeyChallengeStoreFixture,
  PasskeyStoreFactory,
  PasskeyStoreFixture,
} from './fixture.js'
export {
  assertPasskeyChallengeStoreConformance,
  assertPasskeyStoreConformance,
  passkeyChallengeStoreSuite,
  passkeyStoreSuite,
} from './suite.js'
