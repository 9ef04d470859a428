import { describe, expect, it } from 'vitest'
import { runSuite } from '../src/index.js'
import { assertOAuthAccountStoreConformance, oauthAccountStoreSuite } from '../src/oauth/index.js'
import { ConformanceViolation } from '../src/suite/suite.js'
import { brokenOAuthStores } from './support/broken-oauth-stores.js'
import { memoryFixture } from './support/memory-fixtures.js'

describe('OAuthAccountStore conformance suite against deliberately broken stores', () => {
  it('passes the reference memory store as a whole', async () => {
    await expect(assertOAuthAccountStoreConformance(() => memoryFixture())).resolves.toBeUndefined()
  })

  it('passes the memory store without an outbox (it refuses changes that carry notifications)', async () => {
    await expect(
      assertOAuthAccountStoreConformance(() => memoryFixture(undefined, { withOutbox: false })),
    ).resolves.toBeUndefined()
  })

  it('has unique case ids covering every area the issue names', () => {
    const ids = oauthAccountStoreSuite(() => memoryFixture()).cases.map((testCase) => testCase.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const area of [
      'login.provisioning-race',
      'link.identity-linked-elsewhere',
      'link.provider-already-linked',
      'link.relink-refreshes-grant',
      'unlink.concurrent-race',
      'unlink.final-method',
      'vault.cas-one-winner',
      'vault.no-aba',
      'vault.conditional-discard',
      'retry.claim-complete',
      'vault.ciphertext',
      'vault.bound-to-row',
      'outbox-atomic',
    ]) {
      expect(ids).toContain(`oauth-accounts.${area}`)
    }
  })

  for (const broken of brokenOAuthStores) {
    it(`fails "${broken.name}" naming ${broken.caught.join(', ')}`, async () => {
      const results = await runSuite(oauthAccountStoreSuite(broken.factory))
      const failed = results.filter((result) => !result.passed)
      for (const caseId of broken.caught) {
        const result = failed.find((candidate) => candidate.id === caseId)
        expect(result, `${caseId} should fail`).toBeDefined()
        expect(result?.error).toBeInstanceOf(ConformanceViolation)
        expect((result?.error as ConformanceViolation | undefined)?.caseId).toBe(caseId)
      }
      await expect(assertOAuthAccountStoreConformance(broken.factory)).rejects.toThrow(
        /invariant\(s\) violated/,
      )
    })
  }
})
