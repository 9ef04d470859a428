import { describe, expect, it } from 'vitest'
import { runSuite } from '../src/index.js'
import { ConformanceViolation } from '../src/suite/suite.js'
import { assertTotpStoreConformance, totpStoreSuite } from '../src/totp/index.js'
import { brokenTotpStores, memoryTotpFixture } from './support/broken-totp-stores.js'

describe('TotpStore conformance suite against deliberately broken stores', () => {
  it('passes the reference memory store as a whole', async () => {
    await expect(assertTotpStoreConformance(memoryTotpFixture)).resolves.toBeUndefined()
  })

  for (const broken of brokenTotpStores) {
    it(`fails "${broken.name}" naming ${broken.caught.join(', ')}`, async () => {
      const failed = (await runSuite(totpStoreSuite(broken.factory))).filter((result) => !result.passed)
      for (const caseId of broken.caught) {
        const result = failed.find((candidate) => candidate.id === caseId)
        expect(result, `${caseId} should fail`).toBeDefined()
        expect(result?.error).toBeInstanceOf(ConformanceViolation)
      }
      await expect(assertTotpStoreConformance(broken.factory)).rejects.toThrow(/invariant\(s\) violated/)
    })
  }
})
