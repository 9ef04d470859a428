// The "done when" of the one-account model: the wiring of docs/oauth.md, copied verbatim (a test below
// proves the copy, the docs and docs/examples/oauth/wiring.ts are the same lines), in an app over memory
// stores and over Postgres stores, against a real OpenID Provider (oidc-provider on loopback). A
// first-time user signs in with the provider, links a password, unlinks the provider, deletes the
// account, and every credential they had is refused.
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { AccountService, type AccountStore, MemoryAccountStore } from '@portcullis/core/accounts'
import { AuthorizationSnapshot, stepUpVerifierFor } from '@portcullis/core/authorization'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import {
  clearSessionCookie,
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  type RateLimitStore,
  type SessionStore,
} from '@portcullis/core/local-accounts'
import { transactions } from '@portcullis/core/oauth'
import {
  BackchannelLogout,
  discoverOidcProvider,
  GitHubOAuthProvider,
  OAuthLifecycleService,
  OIDCDiscoveryClient,
  type OIDCProvider,
} from '@portcullis/core/oidc'
import {
  AESGCMOAuthTransactionProtector,
  type OAuthTransactionProtector,
  OAuthTransactionProtectorKey,
} from '@portcullis/core/protection'
import { MemoryRevocationNotices, type RevocationNotices } from '@portcullis/core/revocation'
import { MemoryStepUpStore, StepUpService, type StepUpStore } from '@portcullis/core/step-up'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import {
  createAccountRoutes,
  createOAuthRoutes,
  createSecurity,
  currentLocalSession,
  localAccountRoutes,
  localSessionOf,
} from '@portcullis/express'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
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
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TestBrowser } from '../../../../packages/core/test/oidc/support/browser.js'
import { TestIdp } from '../../../../packages/core/test/oidc/support/test-idp.js'
import { HttpClient } from '../../../../packages/express/test/oauth/support/http-client.js'

const ORIGIN = 'https://app.example'
const CALLBACK = `${ORIGIN}/auth/oauth/google/callback`
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin', origin: ORIGIN }
const CLIENT = { clientId: 'docs-wiring', clientSecret: randomBytes(24).toString('hex') }

/** The stores the wiring expects under these names (docs/oauth.md creates the Postgres ones). */
interface Stores {
  readonly accountStore: AccountStore
  readonly sessions: SessionStore
  readonly rateLimits: RateLimitStore
  readonly stepUpStore: StepUpStore
  readonly transactionStore: ConstructorParameters<typeof transactions.OAuthTransactionService>[0]['store']
  readonly notices: RevocationNotices
}

interface Providers {
  readonly google: OIDCProvider
  readonly github: GitHubOAuthProvider
  readonly protector: OAuthTransactionProtector
}

/** The docs' wiring, verbatim between the markers, over the given stores and providers. */
function wire(stores: Stores, providers: Providers) {
  const { accountStore, sessions, rateLimits, stepUpStore, transactionStore, notices } = stores
  const { google, github, protector } = providers
  // docs:oauth-wiring:start
  const stepUp = new StepUpService({ store: stepUpStore })

  const lifecycle = new OAuthLifecycleService({
    registrations: [
      {
        provider: google,
        // Google's view of the one account store: its identities are sign-in methods of these accounts.
        accounts: accountStore.oauth({ provider: google.name, clientId: google.clientId, protector }),
        redirectUri: `${ORIGIN}/auth/oauth/google/callback`,
        // A first sign-in creates the account, with this identity as its one sign-in method.
        provisionUnknown: true,
        // Purposes Google may reauthenticate for (max_age=0 forces a fresh login there).
        reauthentication: {
          'delete-account': { maxAge: 0 },
          'password-add': { maxAge: 300 },
          'oauth-unlink': { maxAge: 300 },
        },
        postLogoutRedirectUri: `${ORIGIN}/`,
      },
      {
        // GitHub has no signed auth_time: sign-in and linking only, never reauthentication.
        provider: github,
        accounts: accountStore.oauth({ provider: github.name, clientId: github.clientId, protector }),
        redirectUri: `${ORIGIN}/auth/oauth/github/callback`,
        provisionUnknown: true,
      },
    ],
    transactions: new transactions.OAuthTransactionService({
      store: transactionStore,
      // HMAC key of state and binding digests; the same on every instance.
      pepper: Buffer.from(process.env.PORTCULLIS_OAUTH_PEPPER ?? '', 'base64'),
      redirects: new transactions.OAuthRedirectPolicy({
        callbackUris: {
          google: [`${ORIGIN}/auth/oauth/google/callback`],
          github: [`${ORIGIN}/auth/oauth/github/callback`],
        },
        returnTo: ['/', '/settings', '/settings/security'],
      }),
    }),
    // Lets a callback whose token request never left this process be retried (IdP unreachable).
    transactionStore,
    stepUp,
  })

  // Passwords and sessions of the same accounts: one account store, no second one to keep in step.
  const local = new LocalAccounts({
    profile: 'session',
    accounts: accountStore,
    sessions,
    rateLimits,
    hasher: argon2idPasswordHasher(),
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    revocation: { notices },
  })

  const security = createSecurity({
    mechanisms: local.mechanisms,
    stepUp: {
      // A credential is bound to the session it was issued to: the verifier derives that session from
      // the request's verified evidence, never from anything the client chose.
      verifier: stepUpVerifierFor(stepUp, (request) => {
        const session = localSessionOf({ ...request, snapshot: AuthorizationSnapshot.empty })
        return session && { securityEpoch: session.securityEpoch, sessionBinding: session.sessionHandle }
      }),
    },
  })

  const localRoutes = localAccountRoutes({ local, security })

  const oauthRoutes = createOAuthRoutes({
    security,
    lifecycle,
    // The signed-in user of link, scopes, unlink, revoke, logout, revalidate and reauthenticate.
    currentSession: currentLocalSession(security),
    // After a verified login (a first one included): a real local session, fixation-safe.
    // The provider session (`identity`: issuer, subject, sid) goes into its handle for back-channel logout.
    signIn: async ({ accountId, identity, provisioned }, request, response) => {
      const signIn = await localRoutes.establishSignIn(request, response, {
        accountId,
        providerSession: identity,
      })
      // `provisioned`: this sign-in created the account; start your onboarding here.
      // JSON clients see what this returns; never return the session id itself.
      return signIn.transport === 'session' ? { csrfToken: signIn.csrfToken, provisioned } : undefined
    },
    // An unlink ends every session of the account (the epoch moves); the caller gets a fresh one.
    renewSignIn: (change, request, response) => localRoutes.renewSignIn(request, response, change),
    // POST logout: end the local session first, then the browser goes to the provider's end-session URL.
    signOut: async (session, request, response) => {
      await local.logout({
        accountId: session.accountId,
        credentials: local.credentialsOf(request.security?.evidence ?? []),
      })
      if (local.sessionCookie !== undefined) {
        response.append('Set-Cookie', clearSessionCookie(local.sessionCookie))
      }
    },
    // POST /auth/oauth/{provider}/backchannel-logout: register it as the client's backchannel_logout_uri.
    backchannelLogout: new BackchannelLogout({
      lifecycle,
      revokeSessions: (match) => local.revokeProviderSessions(match),
      // Used jti's, shared by every instance: a replayed logout token is refused everywhere.
      replay: rateLimits,
    }),
  })

  // Password step-up, the account's sign-in methods, adding and removing the password, deleting it all.
  // The lifecycle stages the revocation of retained provider tokens before an account is deleted.
  const accountRoutes = createAccountRoutes({
    security,
    local,
    service: new AccountService({ accounts: accountStore, local, stepUp, providerTokens: lifecycle }),
  })

  const app: express.Express = express()
  app.use(security.middleware)
  app.use(localRoutes) // the CSRF guard runs before the other routes' unsafe methods
  app.use(oauthRoutes)
  app.use(accountRoutes)
  // docs:oauth-wiring:end
  return { app, lifecycle }
}

const root = fileURLToPath(new URL('../../../../', import.meta.url))
const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^\/\/ #(end)?region\b/.test(line))
const between = (text: string) => {
  const start = text.indexOf('// docs:oauth-wiring:start')
  const end = text.indexOf('// docs:oauth-wiring:end')
  return lines(text.slice(text.indexOf('\n', start) + 1, end))
}

describe('docs/oauth.md wiring', () => {
  it('is the same, line for line, in docs/oauth.md, docs/examples/oauth/wiring.ts and this test', async () => {
    const doc = await readFile(`${root}docs/oauth.md`, 'utf8')
    const [, block = ''] =
      /<!-- example: examples\/oauth\/wiring\.ts#wiring -->\n```ts\n([\s\S]*?)```/.exec(doc) ?? []
    const example = between(await readFile(`${root}docs/examples/oauth/wiring.ts`, 'utf8'))
    const test = between(await readFile(fileURLToPath(import.meta.url), 'utf8'))
    expect(example.length).toBeGreaterThan(40)
    expect(lines(block)).toEqual(example)
    expect(test).toEqual(example)
  })
})

async function memoryStores(
  protector: OAuthTransactionProtector,
): Promise<Stores & { close(): Promise<void> }> {
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
): Promise<Stores & { close(): Promise<void> }> {
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
    const { app, lifecycle } = wire(stores, { google, github, protector })
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
