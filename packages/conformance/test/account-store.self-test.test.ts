import { describe, expect, it } from 'vitest'
import { accountStoreSuite, assertAccountStoreConformance } from '../src/accounts/index.js'
import { runSuite } from '../src/suite/suite.js'
import { brokenAccountStores, correctAccountStore } from './support/broken-account-stores.js'

describe('the AccountStore suite against deliberately broken stores', () => {
  it('passes the forwarding wrapper of the memory store (the harness itself is sound)', async () => {
    await expect(assertAccountStoreConformance(correctAccountStore)).resolves.toBeUndefined()
  })

  for (const { name, factory, caught } of brokenAccountStores) {
    it(`fails "${name}" naming ${caught.join(', ')}`, async () => {
      const results = await runSuite(accountStoreSuite(factory))
      const failed = results.filter((result) => !result.passed).map((result) => result.id)
      expect(failed).toEqual(expect.arrayContaining([...caught]))
    })
  }
})
