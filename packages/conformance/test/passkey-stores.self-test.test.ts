import { MemoryPasskeyStore } from '@portcullis/core/passkeys'
import { describe, expect, it } from 'vitest'
import { runSuite } from '../src/index.js'
import {
  assertPasskeyChallengeStoreConformance,
  assertPasskeyStoreConformance,
  passkeyChallengeStoreSuite,
  passkeyStoreSuite,
} from '../src/passkeys/index.js'
import { type ConformanceSuite, ConformanceViolation } from '../src/suite/suite.js'
import {
  type Broken,
  brokenChallengeStores,
  brokenPasskeyStores,
  memoryChallengeFixture,
  memoryPasskeyFixture,
} from './support/broken-passkey-stores.js'

function selfTest<Fixture>(
  broken: readonly Broken<Fixture>[],
  suite: (factory: () => Fixture) => ConformanceSuite<Fixture>,
) {
  for (const store of broken) {
    it(`fails "${store.name}" naming ${store.caught.join(', ')}`, async () => {
      const failed = (await runSuite(suite(store.factory))).filter((result) => !result.passed)
      for (const caseId of store.caught) {
        const result = failed.find((candidate) => candidate.id === caseId)
        expect(result, `${caseId} should fail`).toBeDefined()
        expect(result?.error).toBeInstanceOf(ConformanceViolation)
      }
    })
  }
}

describe('PasskeyStore conformance suite against deliberately broken stores', () => {
  it('passes the reference memory store as a whole', async () => {
    await expect(assertPasskeyStoreConformance(memoryPasskeyFixture)).resolves.toBeUndefined()
  })
  it('passes the memory store without an outbox (it refuses changes that carry notifications)', async () => {
    await expect(
      assertPasskeyStoreConformance(() => ({ store: new MemoryPasskeyStore() })),
    ).resolves.toBeUndefined()
  })
  selfTest(brokenPasskeyStores, passkeyStoreSuite)
})

describe('PasskeyChallengeStore conformance suite against deliberately broken stores', () => {
  it('passes the reference memory store as a whole', async () => {
    await expect(assertPasskeyChallengeStoreConformance(memoryChallengeFixture)).resolves.toBeUndefined()
  })
  selfTest(brokenChallengeStores, passkeyChallengeStoreSuite)
})
