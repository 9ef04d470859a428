import { describe, expect, it } from 'vitest'
import { runSuite } from '../src/index.js'
import { assertStepUpStoreConformance, stepUpStoreSuite } from '../src/step-up/index.js'
import { ConformanceViolation } from '../src/suite/suite.js'
import { brokenStepUpStores, memoryStepUpFixture } from './support/broken-step-up-stores.js'

describe('StepUpStore conformance suite against deliberately broken stores', () => {
  it('passes the reference memory store as a whole', async () => {
    await expect(assertStepUpStoreConformance(memoryStepUpFixture)).resolves.toBeUndefined()
  })

  for (const broken of brokenStepUpStores) {
    it(`fails "${broken.name}" naming ${broken.caught.join(', ')}`, async () => {
      const failed = (await runSuite(stepUpStoreSuite(broken.factory))).filter((result) => !result.passed)
      for (const caseId of broken.caught) {
        const result = failed.find((candidate) => candidate.id === caseId)
        expect(result, `${caseId} should fail`).toBeDefined()
        expect(result?.error).toBeInstanceOf(ConformanceViolation)
      }
      await expect(assertStepUpStoreConformance(broken.factory)).rejects.toThrow(/invariant\(s\) violated/)
    })
  }
})
