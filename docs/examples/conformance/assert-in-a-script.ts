// Without a test runner: each assert function runs its whole suite and throws an AggregateError
// naming every violated invariant. `runSuite` returns per-case results instead of throwing.
import { randomBytes } from 'node:crypto'
import { runSuite } from '@portcullis/conformance'
import { assertOAuthAccountStoreConformance, oauthAccountStoreSuite } from '@portcullis/conformance/oauth'
import { assertStepUpStoreConformance } from '@portcullis/conformance/step-up'
import {
  AESGCMOAuthTransactionProtector,
  accounts,
  MemoryAccountStore,
  MemoryStepUpStore,
  OAuthTransactionProtectorKey,
} from '@portcullis/core'

const accountStore = () => {
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('test-1', randomBytes(32)),
  })
  // The provider view of an account store: accounts are created there (password sign-up, provisioning).
  const accountStore = new MemoryAccountStore()
  const store = accountStore.oauth({ provider: 'example', clientId: 'client', protector })
  return { store, accountStore, inspector: accounts.inspectMemoryOAuthAccountStore(store) }
}

// #region three-ways-to-run-a-suite
await assertOAuthAccountStoreConformance(accountStore)
await assertStepUpStoreConformance(() => ({ store: new MemoryStepUpStore() }))

for (const result of await runSuite(oauthAccountStoreSuite(accountStore))) {
  console.log(result.passed ? 'ok  ' : 'FAIL', result.id)
}
// #endregion three-ways-to-run-a-suite
