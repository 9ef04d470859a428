import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryApiKeyStore } from '@portcullis/core/api-keys'
import { MemoryRefreshTokenStore, MemorySessionStore } from '@portcullis/core/local-accounts'
import { MemoryStepUpStore } from '@portcullis/core/step-up'
import { accountStoreSuite } from '../src/accounts/index.js'
import { describeConformance } from '../src/bindings/vitest.js'
import { realProtector } from './support/memory-fixtures.js'

// The reference memory store passes every case; the stores of sessions, refresh families, step-up
// credentials and API keys are cascaded, so deleting an account takes their records in the same step.
describeConformance(
  accountStoreSuite(() => {
    const sessions = new MemorySessionStore()
    const refreshTokens = new MemoryRefreshTokenStore()
    const stepUp = new MemoryStepUpStore()
    const apiKeys = new MemoryApiKeyStore()
    const store = new MemoryAccountStore({ cascade: [sessions, refreshTokens, stepUp, apiKeys] })
    return { store, protector: realProtector(), sessions, refreshTokens, stepUp, apiKeys }
  }),
)
