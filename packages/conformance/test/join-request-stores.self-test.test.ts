import { describe, expect, it } from 'vitest'
import { runSuite } from '../src/index.js'
import { assertJoinRequestStoresConformance, joinRequestStoresSuite } from '../src/organizations/index.js'
import { ConformanceViolation } from '../src/suite/suite.js'
import { brokenJoinRequestStores, memoryJoinRequestFixture } from './support/broken-join-request-stores.js'

describe('join request stores conformance suite against deliberately broken stores', () => {
  it('passes the reference memory store as a whole', async () => {
    await expect(assertJoinRequestStoresConformance(memoryJoinRequestFixture())).resolves.toBeUndefined()
  })

  for (const broken of brokenJoinRequestStores) {
    it(`fails "${broken.name}" naming ${broken.caught.join(', ')}`, async () => {
      const failed = (await runSuite(joinRequestStoresSuite(broken.factory))).filter(
        (result) => !result.passed,
      )
      for (const caseId of broken.caught) {
        const result = failed.find((candidate) => candidate.id === caseId)
        expect(result, `${caseId} should fail`).toBeDefined()
        expect(result?.error).toBeInstanceOf(ConformanceViolation)
      }
    })
  }
})
