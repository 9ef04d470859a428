// The "done when" of the one-account model: the wiring of docs/oauth.md (`wireOAuth` of
// docs/examples/oauth/oauth-wiring.ts, the very function the docs show), in an app over memory stores and
// over Postgres stores, against a real OpenID Provider (oidc-provider on loopback). A
// first-time user signs in with the provider, links a password, unlinks the provider, deletes the
// account, and every credential they had is refused.
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { MemoryRateLimitStore, MemorySessionStore } from '@portcullis/core/local-accounts'
import { transactions } from '@portcullis/core/oauth'
import { discoverOidcProvider, GitHubOAuthProvider, OIDCDiscoveryClient } from '@portcullis/core/oidc'
import {
  AESGCMOAuthTransactionProtector,
  type OAuthTransactionProtector,
  OAuthTransactionProtectorKey,
} from '@portcullis/core/protection'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import { MemoryStepUpStore } from '@portcullis/core/step-up'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresOAuthTransactionStore,
  PostgresRateLimitStore,
  PostgresRevocationNotices,
  PostgresSessionStore,
  PostgresStepUpStore,
} from '@portcullis/postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type OAuthWiringStores, ORIGIN, wireOAuth } from '../../../../docs/examples/oauth/oauth-wiring.js'
import { TestBrowser } from '../../../../packages/core/test/oidc/support/browser.js'
import { TestIdp } from '../../../../packages/core/test/oidc/support/test-idp.js'
import { HttpClient } from '../../../../packages/express/test/oauth/support/http-client.js'

const CALLBACK = `${ORIGIN}/auth/oauth/google/callback`
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin', origin: ORIGIN }
const CLIENT = { clientId: 'docs-wiring', clientSecret: randomBytes(24).toString('hex') }

async function memoryStores(
  protector: OAuthTransactionProtector,
): Promise<OAuthWiringStores & { close(): Promise<void> }> {
  const notices = new MemoryRevocationNotices()
  const sessions = new MemorySessionStore({ notices })
  const stepUpStore = new MemoryStepUpStore()
  return {
    // In one process, the account store removes an account's sessions and step-up credentials itself.
    accountStore: new MemoryAccountStore({ cascade: [sessions, stepUpStore], notices }),
    notices,
    sessions,
    rateLimits: new MemoryRateLimitStore(),
    stepUpStore,
    transactionStore: new transactions.MemoryOAuthTransactionStore({ protector }),
    close: async () => {},
  }
}

async function postgresStores(
  protector: OAuthTransactionProtector,
): Promise<OAuthWiringStores & { close(): Promise<void> }> {
  const database = await createTestDatabase()
  const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 4 })
  await migrate(client)
  const notices = new PostgresRevocationNotices({ client })
  await notices.start()
  return {
    notices,
    accountStore: new PostgresAccountStore({ client }),
    sessions: new PostgresSessionStore({ client }),
    rateLimits: new PostgresRateLimitStore({ client }),
    stepUpStore: new PostgresStepUpStore({ client }),
    transactionStore: new PostgresOAuthTransactionStore({ client, protector }),
    async close() {
      await notices.close()
      await client.close()
      await database.close()
    },
  }
}

describe.each([
  ['memory stores', memoryStores],
  ['Postgres stores', postgresStores],
])('the docs wiring with %s, against oidc-provider', (_name, storesFor) => {
  let idp: TestIdp
  let server: Server
  let origin: string
  let close: () => Promise<void>
  const idpBrowser = new TestBrowser()

  beforeAll(async () => {
    process.env.PORTCULLIS_OAUTH_PEPPER = randomBytes(32).toString('base64')
    idp = await TestIdp.start({ clients: [{ ...CLIENT, redirectUris: [CALLBACK] }] })
    const discovery = new OIDCDiscoveryClient({ allowedIssuers: [idp.issuer], allowLoopback: true })
    const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
    const google = await discoverOidcProvider({
      name: 'google',
      issuer: idp.issuer,
      ...CLIENT,
      discovery,
      jwks,
      scopes: ['openid', 'email', 'profile'],
    })
    const github = new GitHubOAuthProvider({ clientId: 'unused', clientSecret: 'unused-secret' })
    const protector = new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('test', randomBytes(32)),
    })
    const stores = await storesFor(protector)
    const { app, lifecycle } = wireOAuth(stores, { google, github, protector })
    server = createServer(app)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    close = async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await lifecycle.close()
      await jwks.close()
      discovery.close()
      await idp.close()
      await stores.close()
    }
  })
  afterAll(() => close())

  /** Follows a provider redirect through the IdP as `subject` and requests the callback as JSON. */
  async function throughIdp(client: HttpClient, location: string, subject: string) {
    idp.nextLogin = { accountId: subject }
    const callback = await idpBrowser.authorize(location, CALLBACK)
    return client.request(`${callback.pathname}${callback.search}`, { wantsJson: true })
  }

  it('signs a first-time user in, links a password, unlinks the provider, deletes the account, refuses every credential', async () => {
    const subject = `first-timer-${randomBytes(4).toString('hex')}`
    const username = `newcomer.${randomBytes(4).toString('hex')}`
    const password = 'a long enough password'
    const browser = new HttpClient(origin)

    // 1. First sign-in: the account is provisioned, signIn learns it, a real local session starts.
    const begun = await browser.request('/auth/oauth/google/login?return_to=/settings')
    expect(begun.status).toBe(303)
    const signedIn = await throughIdp(browser, begun.headers.get('location') ?? '', subject)
    expect(signedIn.status, signedIn.text).toBe(200)
    expect(signedIn.body).toMatchObject({
      operation: 'login',
      provisioned: true,
      signIn: { provisioned: true },
    })
    const accountId = signedIn.body.accountId as string
    const first = await browser.request('/auth/account', { wantsJson: true })
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({
      accountId,
      status: 'active',
      methods: [{ kind: 'identity', provider: 'google' }],
    })
    const identity = (first.body.methods as { providerAccountId: string }[])[0]?.providerAccountId ?? ''

    // A second sign-in with the same identity is the same account, not a new one.
    const again = new HttpClient(origin)
    const second = await again.request('/auth/oauth/google/login')
    const returning = await throughIdp(again, second.headers.get('location') ?? '', subject)
    expect(returning.body).toMatchObject({ accountId, provisioned: false })

    // 2. Link a password: a fresh provider login earns the one-use `password-add` credential.
    const reauth = await browser.post('/auth/oauth/google/reauthenticate/password-add', {
      headers: SAME_ORIGIN,
      json: {},
      wantsJson: true,
    })
    expect(reauth.status, reauth.text).toBe(200)
    const confirmed = await throughIdp(browser, reauth.body.redirectUrl as string, subject)
    expect(confirmed.body).toMatchObject({ operation: 'reauthenticate', purpose: 'password-add' })
    const added = await browser.post('/auth/password', {
      headers: { ...SAME_ORIGIN, 'portcullis-step-up': confirmed.body.stepUpToken as string },
      json: { username, password },
      wantsJson: true,
    })
    expect(added.status, added.text).toBe(201)
    const twice = await browser.post('/auth/password', {
      headers: { ...SAME_ORIGIN, 'portcullis-step-up': confirmed.body.stepUpToken as string },
      json: { username: `${username}.2`, password },
      wantsJson: true,
    })
    expect(twice.status).toBe(409)
    expect(twice.body.code).toBe('account.password_exists')

    // The password signs in to the same account (a second device).
    const device = new HttpClient(origin)
    const byPassword = await device.post('/auth/login', {
      headers: SAME_ORIGIN,
      json: { username, password },
      wantsJson: true,
    })
    expect(byPassword.status, byPassword.text).toBe(200)
    expect(byPassword.body.accountId).toBe(accountId)

    // 3. Unlink the provider with a password step-up: the epoch moves, this browser stays signed in,
    // the other device's session ends.
    const unlinkStepUp = await browser.post('/auth/step-up/oauth-unlink', {
      headers: SAME_ORIGIN,
      json: { password },
      wantsJson: true,
    })
    expect(unlinkStepUp.status, unlinkStepUp.text).toBe(200)
    const unlinked = await browser.post(`/auth/oauth/google/links/${identity}/unlink`, {
      headers: { ...SAME_ORIGIN, 'portcullis-step-up': unlinkStepUp.body.stepUpToken as string },
      wantsJson: true,
    })
    expect(unlinked.status, unlinked.text).toBe(200)
    const afterUnlink = await browser.request('/auth/account', { wantsJson: true })
    expect(afterUnlink.body).toMatchObject({ methods: [{ kind: 'password', username }] })
    expect((await device.request('/auth/account', { wantsJson: true })).status).toBe(401)
    // The last method is never removed.
    const lastStepUp = await browser.post('/auth/step-up/password-remove', {
      headers: SAME_ORIGIN,
      json: { password },
      wantsJson: true,
    })
    const last = await browser.post('/auth/password/remove', {
      headers: { ...SAME_ORIGIN, 'portcullis-step-up': lastStepUp.body.stepUpToken as string },
      wantsJson: true,
    })
    expect(last.status).toBe(409)
    expect(last.body.code).toBe('account.final_method')

    // 4. Delete the account: a `delete-account` credential earned with the password.
    const wrong = await browser.post('/auth/step-up/delete-account', {
      headers: SAME_ORIGIN,
      json: { password: 'not the password' },
      wantsJson: true,
    })
    expect(wrong.status).toBe(401)
    const deleteStepUp = await browser.post('/auth/step-up/delete-account', {
      headers: SAME_ORIGIN,
      json: { password },
      wantsJson: true,
    })
    const spare = await browser.post('/auth/step-up/oauth-link', {
      headers: SAME_ORIGIN,
      json: { password },
      wantsJson: true,
    })
    expect(spare.status).toBe(200)
    const deleted = await browser.post('/auth/account/delete', {
      headers: { ...SAME_ORIGIN, 'portcullis-step-up': deleteStepUp.body.stepUpToken as string },
      wantsJson: true,
    })
    expect(deleted.status, deleted.text).toBe(204)

    // 5. Every credential is refused: the session, the password, a step-up credential issued before.
    expect((await browser.request('/auth/account', { wantsJson: true })).status).toBe(401)
    const refusedLogin = await new HttpClient(origin).post('/auth/login', {
      headers: SAME_ORIGIN,
      json: { username, password },
      wantsJson: true,
    })
    expect(refusedLogin.status).toBe(401)
    expect(refusedLogin.body.code).toBe('local.invalid_credentials')
    const staleStepUp = await browser.post('/auth/oauth/google/link', {
      headers: { ...SAME_ORIGIN, 'portcullis-step-up': spare.body.stepUpToken as string },
      wantsJson: true,
    })
    expect(staleStepUp.status).toBe(401)
  })
})
