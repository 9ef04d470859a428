import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryApiKeyStore } from '@portcullis/core/api-keys'
import { MemoryOneTimeCodeStore } from '@portcullis/core/codes'
import { MemoryRefreshTokenStore, MemorySessionStore } from '@portcullis/core/local-accounts'
import { MemoryMailOutbox } from '@portcullis/core/mail'
import { MemoryPasskeyChallengeStore, MemoryPasskeyStore } from '@portcullis/core/passkeys'
import { MemoryStepUpStore } from '@portcullis/core/step-up'
import { MemoryTotpStore } from '@portcullis/core/totp'
import { accountStoreSuite } from '../src/accounts/index.js'
import { describeConformance } from '../src/bindings/vitest.js'
import { realProtector } from './support/memory-fixtures.js'

// The reference memory store passes every case; the stores of sessions, refresh families, step-up
// credentials, API keys, TOTP and passkeys are cascaded, so deleting an account takes their records in
// the same step, and change messages go to a memory outbox (and a sign-up's code to the code store).
describeConformance(
  accountStoreSuite(() => {
    const sessions = new MemorySessionStore()
    const refreshTokens = new MemoryRefreshTokenStore()
    const stepUp = new MemoryStepUpStore()
    const apiKeys = new MemoryApiKeyStore()
    const totp = new MemoryTotpStore()
    const passkeys = new MemoryPasskeyStore()
    const passkeyChallenges = new MemoryPasskeyChallengeStore()
    const outbox = new MemoryMailOutbox()
    const codes = new MemoryOneTimeCodeStore({ outbox })
    const store = new MemoryAccountStore({
      cascade: [sessions, refreshTokens, stepUp, apiKeys, totp, passkeys, passkeyChallenges, codes],
      outbox,
    })
    const companions = { sessions, refreshTokens, stepUp, apiKeys, totp, passkeys, passkeyChallenges }
    return { store, protector: realProtector(), outbox, codes, ...companions }
  }),
)
