import { describe, expect, it } from 'vitest'
import { runSuite } from '../src/index.js'
import { assertOrganizationStoresConformance, organizationStoresSuite } from '../src/organizations/index.js'
import { ConformanceViolation } from '../src/suite/suite.js'
import { brokenOrganizationStores, memoryOrganizationFixture } from './support/broken-organization-stores.js'

describe('organization stores conformance suite against deliberately broken stores', () => {
  it('passes the reference memory store as a whole', async () => {
    await expect(assertOrganizationStoresConformance(memoryOrganizationFixture())).resolves.toBeUndefined()
  })

  for (const broken of brokenOrganizationStores) {
    it(`fails "${broken.name}" naming ${broken.caught.join(', ')}`, async () => {
      const failed = (await runSuite(organizationStoresSuite(broken.factory))).filter(
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
