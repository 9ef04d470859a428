// The whole OIDC stack against a real loopback IdP: shared discovery client and JWKS provider, a
// discovered provider, transaction service and store, account store, step-up service and the lifecycle.
import { randomBytes } from 'node:crypto'
import { MemoryAccountStore } from '../../../src/accounts/memory-store.js'
import { CachedJWKSProvider } from '../../../src/jwks/cached-jwks-provider.js'
import type { SecurityNoticeSource } from '../../../src/local-accounts/passwords/security-notices.js'
import type { MemoryMailOutbox } from '../../../src/mail/memory-outbox.js'
import type { OAuthAccountStore } from '../../../src/oauth/accounts/port.js'
import { MemoryOAuthTransactionStore } from '../../../src/oauth/transactions/memory-store.js'
import { OAuthRedirectPolicy } from '../../../src/oauth/transactions/redirect-policy.js'
import { OAuthTransactionService } from '../../../src/oauth/transactions/service.js'
import { discoverOidcProvider } from '../../../src/oidc/discover.js'
import { OIDCDiscoveryClient } from '../../../src/oidc/discovery-client.js'
import { OAuthLifecycleService } from '../../../src/oidc/lifecycle.js'
import type { LocalSession, OAuthCallbackOutcome } from '../../../src/oidc/lifecycle-types.js'
import type { OIDCProvider } from '../../../src/oidc/oidc-provider.js'
import type { OIDCReauthenticationPolicy } from '../../../src/oidc/reauthentication.js'
import { AESGCMOAuthTransactionProtector } from '../../../src/protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../../../src/protection/key.js'
import { MemoryStepUpStore } from '../../../src/step-up/memory-store.js'
import { StepUpService } from '../../../src/step-up/service.js'
import { TestBrowser } from './browser.js'
import { DEFAULT_CLIENT, TestIdp, type TestIdpOptions } from './test-idp.js'

export const REDIRECT_URI = DEFAULT_CLIENT.redirectUris[0] as string
export const PROVIDER = 'idp'

export interface FixtureOptions {
  idp?: TestIdpOptions
  provisionUnknown?: boolean
  retainTokens?: boolean
  reauthentication?: OIDCReauthenticationPolicy
  pushedAuthorizationRequests?: boolean
  /** Give the lifecycle the transaction store, enabling the unreachable-IdP retry. Default true. */
  restoreTransactions?: boolean
  scopes?: readonly string[]
  allowedScopes?: readonly string[]
  /** Adjusts the IdP before the provider is discovered (advertised metadata). */
  beforeDiscovery?: (idp: TestIdp) => void
  /** The transaction service's clock (expiry tests). */
  transactionClock?: () => Date
  /** The account store's outbox (notifications written with link and unlink). */
  outbox?: MemoryMailOutbox
  /** The lifecycle's `securityNotices`; may be given after `create` through `notices.source`. */
  securityNotices?: SecurityNoticeSource
}

export const DEFAULT_REAUTHENTICATION: OIDCReauthenticationPolicy = {
  'delete-account': { maxAge: 0 },
  'change-email': { maxAge: 120 },
  'wire-transfer': { maxAge: 0, acrValues: ['urn:test:loa:2'], amrValues: ['pwd', 'otp'] },
}

export function sessionOf(accountId: string, securityEpoch = 0): LocalSession {
  return { accountId, securityEpoch, sessionHandle: `session-of-${accountId}` }
}

export class OidcFixture {
  readonly idp: TestIdp
  readonly discovery: OIDCDiscoveryClient
  readonly jwks: CachedJWKSProvider
  readonly provider: OIDCProvider
  /** The account store (passwords and every provider's identities). */
  readonly accountStore: MemoryAccountStore
  /** Its view for the test provider. */
  readonly accounts: OAuthAccountStore
  readonly transactionStore: MemoryOAuthTransactionStore
  readonly transactions: OAuthTransactionService
  readonly stepUp: StepUpService
  readonly lifecycle: OAuthLifecycleService
  readonly browser = new TestBrowser()

  private constructor(
    fields: Omit<OidcFixture, 'browser' | 'signIn' | 'authorize' | 'close' | 'passwordAccount'>,
  ) {
    this.idp = fields.idp
    this.discovery = fields.discovery
    this.jwks = fields.jwks
    this.provider = fields.provider
    this.accountStore = fields.accountStore
    this.accounts = fields.accounts
    this.transactionStore = fields.transactionStore
    this.transactions = fields.transactions
    this.stepUp = fields.stepUp
    this.lifecycle = fields.lifecycle
  }

  static async create(options: FixtureOptions = {}): Promise<OidcFixture> {
    const idp = await TestIdp.start(options.idp)
    options.beforeDiscovery?.(idp)
    const discovery = new OIDCDiscoveryClient({ allowedIssuers: [idp.issuer], allowLoopback: true })
    const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
    const provider = await discoverOidcProvider({
      name: PROVIDER,
      issuer: idp.issuer,
      clientId: DEFAULT_CLIENT.clientId,
      clientSecret: DEFAULT_CLIENT.clientSecret,
      discovery,
      jwks,
      scopes: options.scopes ?? ['openid', 'email', 'profile', 'offline_access'],
      ...(options.pushedAuthorizationRequests === undefined
        ? {}
        : { pushedAuthorizationRequests: options.pushedAuthorizationRequests }),
      timeoutMs: 2000,
    })
    const protector = new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('test', randomBytes(32)),
    })
    const transactionStore = new MemoryOAuthTransactionStore({ protector })
    const transactions = new OAuthTransactionService({
      store: transactionStore,
      pepper: randomBytes(32),
      ...(options.transactionClock === undefined ? {} : { clock: options.transactionClock }),
      redirects: new OAuthRedirectPolicy({
        callbackUris: { [PROVIDER]: [REDIRECT_URI] },
        returnTo: ['/', '/settings'],
      }),
    })
    const accountStore = new MemoryAccountStore(
      options.outbox === undefined ? {} : { outbox: options.outbox },
    )
    const accounts = accountStore.oauth({ provider: PROVIDER, clientId: DEFAULT_CLIENT.clientId, protector })
    const stepUp = new StepUpService({ store: new MemoryStepUpStore() })
    const lifecycle = new OAuthLifecycleService({
      registrations: [
        {
          provider,
          accounts,
          redirectUri: REDIRECT_URI,
          provisionUnknown: options.provisionUnknown ?? true,
          retainTokens: options.retainTokens ?? true,
          reauthentication: options.reauthentication ?? DEFAULT_REAUTHENTICATION,
          postLogoutRedirectUri: 'https://app.example/',
          ...(options.allowedScopes === undefined ? {} : { allowedScopes: options.allowedScopes }),
        },
      ],
      transactions,
      ...(options.restoreTransactions === false ? {} : { transactionStore }),
      stepUp,
      ...(options.securityNotices === undefined ? {} : { securityNotices: options.securityNotices }),
    })
    return new OidcFixture({
      idp,
      discovery,
      jwks,
      provider,
      accountStore,
      accounts,
      transactionStore,
      transactions,
      stepUp,
      lifecycle,
    })
  }

  /** Creates an account whose one sign-in method is a password (username = account id). */
  async passwordAccount(accountId: string): Promise<void> {
    const created = await this.accountStore.createAccount({
      accountId,
      username: accountId,
      passwordHash: '$test$not-a-real-hash',
      now: new Date(),
    })
    if (created.outcome !== 'created') throw new Error(`account ${accountId}: ${created.outcome}`)
  }

  /** Runs the IdP part of a begun flow and returns the callback URL the IdP redirected to. */
  authorize(redirectUrl: string): Promise<URL> {
    return this.browser.authorize(redirectUrl, REDIRECT_URI)
  }

  /** A complete login as `accountId` at the IdP. */
  async signIn(accountId: string): Promise<Extract<OAuthCallbackOutcome, { operation: 'login' }>> {
    this.idp.nextLogin = { accountId }
    this.browser.clearCookies()
    const begun = await this.lifecycle.begin({ operation: 'login', provider: PROVIDER })
    const callback = await this.authorize(begun.redirectUrl)
    const outcome = await this.lifecycle.complete({
      provider: PROVIDER,
      callback,
      browserBinding: begun.browserBinding,
    })
    if (outcome.operation !== 'login') throw new Error('expected a login outcome')
    return outcome
  }

  async close(): Promise<void> {
    await this.lifecycle.close()
    await this.jwks.close()
    this.discovery.close()
    await this.idp.close()
  }
}
