// The application owns the shared discovery client and JWKS provider; a provider owns only its own HTTP
// client. Closing one provider (or the lifecycle) must leave the shared resources serving the others.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CachedJWKSProvider } from '../../src/jwks/cached-jwks-provider.js'
import { MemoryOAuthAccountStore } from '../../src/oauth/accounts/memory-store.js'
import { MemoryOAuthTransactionStore } from '../../src/oauth/transactions/memory-store.js'
import { OAuthRedirectPolicy } from '../../src/oauth/transactions/redirect-policy.js'
import { OAuthTransactionService } from '../../src/oauth/transactions/service.js'
import { discoverOidcProvider } from '../../src/oidc/discover.js'
import { OIDCDiscoveryClient } from '../../src/oidc/discovery-client.js'
import { OAuthLifecycleService } from '../../src/oidc/lifecycle.js'
import type { OIDCProvider } from '../../src/oidc/oidc-provider.js'
import { AESGCMOAuthTransactionProtector } from '../../src/protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../../src/protection/key.js'
import { MemoryStepUpStore } from '../../src/step-up/memory-store.js'
import { StepUpService } from '../../src/step-up/service.js'
import { TestBrowser } from './support/browser.js'
import { DEFAULT_CLIENT, TestIdp } from './support/test-idp.js'

const CALLBACK = DEFAULT_CLIENT.redirectUris[0] as string

describe('shared discovery and JWKS resources', () => {
  let first: TestIdp
  let second: TestIdp
  let discovery: OIDCDiscoveryClient
  let jwks: CachedJWKSProvider
  let providerA: OIDCProvider
  let providerB: OIDCProvider
  let lifecycle: OAuthLifecycleService

  beforeAll(async () => {
    first = await TestIdp.start()
    second = await TestIdp.start()
    discovery = new OIDCDiscoveryClient({
      allowedIssuers: [first.issuer, second.issuer],
      allowLoopback: true,
    })
    jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
    const common = {
      clientId: DEFAULT_CLIENT.clientId,
      clientSecret: DEFAULT_CLIENT.clientSecret,
      discovery,
      jwks,
    }
    providerA = await discoverOidcProvider({ ...common, name: 'first', issuer: first.issuer })
    providerB = await discoverOidcProvider({ ...common, name: 'second', issuer: second.issuer })
    const protector = new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('test', randomBytes(32)),
    })
    const store = new MemoryOAuthTransactionStore({ protector })
    const account = (provider: string) =>
      new MemoryOAuthAccountStore({ provider, clientId: DEFAULT_CLIENT.clientId, protector })
    lifecycle = new OAuthLifecycleService({
      registrations: [
        { provider: providerA, accounts: account('first'), redirectUri: CALLBACK, provisionUnknown: true },
        { provider: providerB, accounts: account('second'), redirectUri: CALLBACK, provisionUnknown: true },
      ],
      transactions: new OAuthTransactionService({
        store,
        pepper: randomBytes(32),
        redirects: new OAuthRedirectPolicy({ callbackUris: { first: [CALLBACK], second: [CALLBACK] } }),
      }),
      stepUp: new StepUpService({ store: new MemoryStepUpStore() }),
    })
  })
  afterAll(async () => {
    await lifecycle.close()
    await jwks.close()
    discovery.close()
    await first.close()
    await second.close()
  })

  async function signIn(provider: 'first' | 'second') {
    const browser = new TestBrowser()
    const begun = await lifecycle.begin({ operation: 'login', provider })
    const callback = await browser.authorize(begun.redirectUrl, CALLBACK)
    return lifecycle.complete({ provider, callback, browserBinding: begun.browserBinding })
  }

  it('closing one provider leaves discovery and JWKS serving the other provider', async () => {
    expect((await signIn('first')).operation).toBe('login')
    await providerA.close()
    await providerA.close() // idempotent
    // The second provider's keys are fetched for the first time only now, through the shared provider.
    const outcome = await signIn('second')
    expect(outcome).toMatchObject({ operation: 'login', provider: 'second' })
    expect((await discovery.discover(second.issuer)).issuer).toBe(second.issuer)
    expect((await discovery.discover(first.issuer)).issuer).toBe(first.issuer)
    // The closed provider's own client refuses to talk to its IdP.
    await expect(signIn('first')).rejects.toMatchObject({ code: 'oidc.closed' })
  })

  it('closing the lifecycle closes its providers but not the shared resources', async () => {
    await lifecycle.close()
    await expect(signIn('second')).rejects.toMatchObject({ code: 'oidc.closed' })
    expect((await discovery.discover(second.issuer)).jwksUri).toBe(`${second.issuer}/jwks`)
    const selection = await jwks.selectKey({
      issuer: second.issuer,
      jwksUri: `${second.issuer}/jwks`,
      kid: second.signingKid,
      alg: 'RS256',
    })
    expect(selection.kind).toBe('key')
  })
})
