import { describeConformance } from '../src/bindings/vitest.js'
import { passkeyChallengeStoreSuite, passkeyStoreSuite } from '../src/passkeys/index.js'
import { memoryChallengeFixture, memoryPasskeyFixture } from './support/broken-passkey-stores.js'

describeConformance(passkeyStoreSuite(memoryPasskeyFixture))
describeConformance(passkeyChallengeStoreSuite(memoryChallengeFixture))
