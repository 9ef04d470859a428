import { describe, expect, it } from 'vitest'
import { assertOneTimeCodeStoreConformance, oneTimeCodeStoreSuite } from '../src/codes/index.js'
import { runSuite } from '../src/index.js'
import { ConformanceViolation } from '../src/suite/suite.js'
import { brokenCodeStores, memoryCodeFixture } from './support/broken-code-stores.js'

describe('OneTimeCodeStore conformance suite against deliberately broken stores', () => {
  it('passes the reference memory store as a whole', async () => {
    await expect(assertOneTimeCodeStoreConformance(memoryCodeFixture)).resolves.toBeUndefined()
  })

  for (const broken of brokenCodeStores) {
    it(`fails "${broken.name}" naming ${broken.caught.join(', ')}`, async () => {
      const failed = (await runSuite(oneTimeCodeStoreSuite(broken.factory))).filter(
        (result) => !result.passed,
      )
      for (const caseId of broken.caught) {
        const result = failed.find((candidate) => candidate.id === caseId)
        expect(result, `${caseId} should fail`).toBeDefined()
        expect(result?.error).toBeInstanceOf(ConformanceViolation)
      }
      await expect(assertOneTimeCodeStoreConformance(broken.factory)).rejects.toThrow(
        /invariant\(s\) violated/,
      )
    })
  }
})
