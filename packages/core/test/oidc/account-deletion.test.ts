import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AccountService } from '../../src/accounts/service.js'
import { LocalAccounts } from '../../src/local-accounts/local-accounts.js'
import { MemoryRateLimitStore } from '../../src/local-accounts/rate-limits/memory-rate-limit-store.js'
import { MemorySessionStore } from '../../src/local-accounts/sessions/memory-session-store.js'
import { scryptHasher, testPasswordScreen } from '../support/local-accounts.js'
import { OidcFixture, PROVIDER } from './support/fixture.js'

describe('deleting an account that retains provider tokens, against a real OpenID Provider', () => {
  let fixture: OidcFixture

  beforeAll(async () => {
    fixture = await OidcFixture.create({ scopes: ['openid', 'offline_access'] })
  })
  afterAll(async () => {
    await fixture.close()
  })

  it('stages the tokens for revocation before the account goes, and the drain revokes them at the IdP', async () => {
    const login = await fixture.signIn('ivy')
    expect(login.provisioned).toBe(true)
    expect(await fixture.accounts.getTokens(login.providerAccountId)).not.toBeNull()
    const local = new LocalAccounts({
      profile: 'session',
      accounts: fixture.accountStore,
      sessions: new MemorySessionStore(),
      rateLimits: new MemoryRateLimitStore(),
      hasher: scryptHasher(),
      publicOrigin: 'https://app.example',
      passwordScreen: testPasswordScreen(),
    })
    const service = new AccountService({
      accounts: fixture.accountStore,
      local,
      stepUp: fixture.stepUp,
      providerTokens: fixture.lifecycle,
    })
    const signIn = await local.establishSignIn({ accountId: login.accountId })
    const session = {
      accountId: login.accountId,
      securityEpoch: 1,
      sessionHandle: signIn.transport === 'session' ? signIn.handle : '',
    }
    const credential = await fixture.stepUp.issue({
      accountId: session.accountId,
      purpose: 'delete-account',
      securityEpoch: 1,
      sessionBinding: session.sessionHandle,
    })
    expect(await service.deleteAccount({ session, stepUpToken: credential.reveal() })).toEqual({
      stagedRevocations: 1,
    })
    expect(await fixture.accountStore.getAccount(login.accountId)).toBeNull()
    expect(await fixture.accounts.getTokens(login.providerAccountId)).toBeNull()
    // Nothing stays valid at the provider: the staged retry revokes both tokens there.
    expect(await fixture.lifecycle.drainRevocationRetries(PROVIDER)).toMatchObject({
      claimed: 1,
      completed: 1,
    })
    // The identity is free again: the next sign-in provisions a new account.
    const again = await fixture.signIn('ivy')
    expect(again.provisioned).toBe(true)
    expect(again.accountId).not.toBe(login.accountId)
  })
})
