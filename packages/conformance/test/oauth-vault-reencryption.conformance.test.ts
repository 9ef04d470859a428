import { accounts } from '@portcullis/core/oauth'
import { describe, expect, it } from 'vitest'
import { describeConformance } from '../src/bindings/vitest.js'
import { runSuite } from '../src/index.js'
import {
  assertOAuthVaultReencryptionConformance,
  type OAuthVaultReencryptionFactory,
  oauthVaultReencryptionSuite,
} from '../src/oauth/index.js'
import { ConformanceViolation } from '../src/suite/suite.js'
import { brokenReencryptionStores } from './support/broken-reencryption-stores.js'

const memory: OAuthVaultReencryptionFactory = (protector) => {
  const store = new accounts.MemoryOAuthAccountStore({
    provider: 'example-idp',
    clientId: 'client-1',
    protector,
  })
  return { store, inspector: accounts.inspectMemoryOAuthAccountStore(store) }
}

describeConformance(oauthVaultReencryptionSuite(memory))

describe('OAuthVaultReencryption conformance suite against deliberately broken stores', () => {
  it('passes the reference memory store as a whole', async () => {
    await expect(assertOAuthVaultReencryptionConformance(memory)).resolves.toBeUndefined()
  })

  for (const broken of brokenReencryptionStores) {
    it(`fails "${broken.name}" naming exactly ${broken.caught.join(', ')}`, async () => {
      const results = await runSuite(oauthVaultReencryptionSuite(broken.factory))
      const failed = results.filter((result) => !result.passed)
      expect(failed.map((result) => result.id)).toEqual(broken.caught)
      for (const result of failed) expect(result.error).toBeInstanceOf(ConformanceViolation)
    })
  }
})
