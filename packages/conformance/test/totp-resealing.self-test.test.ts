import { describe, expect, it } from 'vitest'
import { runSuite } from '../src/index.js'
import { ConformanceViolation } from '../src/suite/suite.js'
import { assertTotpResealingConformance, totpResealingSuite } from '../src/totp/index.js'
import { brokenResealingStores, memoryResealingFixture } from './support/broken-totp-stores.js'

describe('TotpSecretResealing conformance suite against deliberately broken stores', () => {
  it('passes the reference memory store as a whole', async () => {
    await expect(assertTotpResealingConformance(memoryResealingFixture)).resolves.toBeUndefined()
  })

  for (const broken of brokenResealingStores) {
    it(`fails "${broken.name}" naming ${broken.caught.join(', ')}`, async () => {
      const failed = (await runSuite(totpResealingSuite(broken.factory))).filter((result) => !result.passed)
      for (const caseId of broken.caught) {
        const result = failed.find((candidate) => candidate.id === caseId)
        expect(result, `${caseId} should fail`).toBeDefined()
        expect(result?.error).toBeInstanceOf(ConformanceViolation)
      }
      await expect(assertTotpResealingConformance(broken.factory)).rejects.toThrow(/invariant\(s\) violated/)
    })
  }
})
