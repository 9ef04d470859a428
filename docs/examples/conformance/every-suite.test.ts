// Runs every conformance suite under vitest, one test per invariant. Replace each memory
// implementation with your own; keep one fresh instance per factory call.
import { randomBytes } from 'node:crypto'
import { oauthAccountStoreSuite, oauthVaultReencryptionSuite } from '@portcullis/conformance/oauth'
import {
  oauthTransactionProtectorSuite,
  oauthTransactionStoreSuite,
} from '@portcullis/conformance/protection'
import { stepUpStoreSuite } from '@portcullis/conformance/step-up'
import { describeConformance } from '@portcullis/conformance/vitest'
import {
  AESGCMOAuthTransactionProtector,
  accounts,
  MemoryAccountStore,
  MemoryStepUpStore,
  OAuthTransactionProtectorKey,
  transactions,
} from '@portcullis/core'

// Test keys are random per run: never commit key material, not even for tests.
const key = (version: string) => new OAuthTransactionProtectorKey(version, randomBytes(32))
const protector = () => new AESGCMOAuthTransactionProtector({ activeKey: key('test-1') })

describeConformance(
  oauthTransactionProtectorSuite(() => {
    const old = key('v1')
    const current = key('v2')
    return {
      protector: new AESGCMOAuthTransactionProtector({ activeKey: current, retainedKeys: [old] }),
      previous: new AESGCMOAuthTransactionProtector({ activeKey: old }),
      impostor: new AESGCMOAuthTransactionProtector({ activeKey: key('v2') }),
    }
  }),
)

describeConformance(
  oauthTransactionStoreSuite(() => {
    const store = new transactions.MemoryOAuthTransactionStore({ protector: protector() })
    return { store, inspectStoredForm: () => store.storedForm() }
  }),
)

// #region vitest
describeConformance(
  oauthAccountStoreSuite(() => {
    const accountStore = new MemoryAccountStore()
    const store = accountStore.oauth({ provider: 'example', clientId: 'client', protector: protector() })
    return { store, accountStore, inspector: accounts.inspectMemoryOAuthAccountStore(store) }
  }),
)

// Re-encryption after a key rotation: the suite hands in the protector it rotates, and each case needs a
// store over a provider registration (or storage) of its own.
describeConformance(
  oauthVaultReencryptionSuite((rotating) => {
    const store = new accounts.MemoryOAuthAccountStore({
      provider: 'example',
      clientId: 'client',
      protector: rotating,
    })
    return { store, inspector: accounts.inspectMemoryOAuthAccountStore(store) }
  }),
)

describeConformance(stepUpStoreSuite(() => ({ store: new MemoryStepUpStore() })))
// #endregion vitest
