import { describe, expect, it } from 'vitest'
import { runSuite } from '../src/index.js'
import {
  assertOrganizationDomainStoreConformance,
  organizationDomainStoreSuite,
} from '../src/organization-domains/index.js'
import { ConformanceViolation } from '../src/suite/suite.js'
import { brokenDomainStores, memoryDomainFixture } from './support/broken-domain-stores.js'

describe('OrganizationDomainStore conformance suite against deliberately broken stores', () => {
  it('passes the reference memory store as a whole', async () => {
    await expect(assertOrganizationDomainStoreConformance(memoryDomainFixture)).resolves.toBeUndefined()
  })

  for (const broken of brokenDomainStores) {
    it(`fails "${broken.name}" naming ${broken.caught.join(', ')}`, async () => {
      const failed = (await runSuite(organizationDomainStoreSuite(broken.factory))).filter(
        (result) => !result.passed,
      )
      for (const caseId of broken.caught) {
        const result = failed.find((candidate) => candidate.id === caseId)
        expect(result, `${caseId} should fail`).toBeDefined()
        expect(result?.error).toBeInstanceOf(ConformanceViolation)
      }
      await expect(assertOrganizationDomainStoreConformance(broken.factory)).rejects.toThrow(
        /invariant\(s\) violated/,
      )
    })
  }
})
