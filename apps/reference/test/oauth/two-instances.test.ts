// Two app instances behind one Postgres (each its own pool, discovery client, JWKS cache and lifecycle)
// and one real OpenID Provider: a sign-in begun on one instance completes on the other, a callback is
// consumed once across instances, and a reauthentication credential issued by one is redeemed exactly
// once across both. Stores: PostgresOAuthTransactionStore, PostgresOAuthAccountStore, PostgresStepUpStore.
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  AESGCMOAuthTransactionProtector,
  AuthorizationSnapshot,
  CachedJWKSProvider,
  discoverOidcProvider,
  OAuthLifecycleService,
  OAuthTransactionProtectorKey,
  OIDCDiscoveryClient,
  requiresStepUp,
  StepUpService,
  stepUpVerifierFor,
  transactions,
} from '@portcullis/core'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { createOAuthRoutes, createSecurity, currentLocalSession, localSessionOf } from '@portcullis/express'
import {
  createPostgresClient,
  migrate,
  type PostgresClient,
  PostgresOAuthAccountStore,
  PostgresOAuthTransactionStore,
  PostgresStepUpStore,
} from '@portcullis/postgres'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TestBrowser } from '../../../../packages/core/test/oidc/support/browser.js'
import { DEFAULT_CLIENT, TestIdp } from '../../../../packages/core/test/oidc/support/test-idp.js'
import { SESSION_COOKIE, TestSessions } from '../../../../packages/express/test/oauth/support/harness.js'
import { HttpClient } from '../../../../packages/express/test/oauth/support/http-client.js'

const REDIRECT_URI = DEFAULT_CLIENT.redirectUris[0] as string

/** What every instance shares: configuration and secrets, never in-process state (but the test sessions). */
interface Shared {
  readonly connectionString: string
  readonly idp: TestIdp
  readonly pepper: Uint8Array
  readonly keyMaterial: Uint8Array
  /** Stands in for a shared session store (the local-accounts Postgres session store in production). */
  readonly sessions: TestSessions
}

interface Instance {
  readonly origin: string
  readonly client: PostgresClient
  close(): Promise<void>
}

async function startInstance(shared: Shared): Promise<Instance> {
  const client = createPostgresClient({ connectionString: shared.connectionString, maxConnections: 4 })
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('k1', shared.keyMaterial),
  })
  const discovery = new OIDCDiscoveryClient({ allowedIssuers: [shared.idp.issuer], allowLoopback: true })
  const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
  const provider = await discoverOidcProvider({
    name: 'idp',
    issuer: shared.idp.issuer,
    clientId: DEFAULT_CLIENT.clientId,
    clientSecret: DEFAULT_CLIENT.clientSecret,
    discovery,
    jwks,
    scopes: ['openid', 'email', 'offline_access'],
    timeoutMs: 2000,
  })
  const transactionStore = new PostgresOAuthTransactionStore({ client, protector })
  const stepUp = new StepUpService({ store: new PostgresStepUpStore({ client }) })
  const lifecycle = new OAuthLifecycleService({
    registrations: [
      {
        provider,
        accounts: new PostgresOAuthAccountStore({
          client,
          provider: 'idp',
          clientId: DEFAULT_CLIENT.clientId,
          protector,
        }),
        redirectUri: REDIRECT_URI,
        provisionUnknown: true,
        retainTokens: true,
        reauthentication: { 'delete-account': { maxAge: 0 } },
      },
    ],
    transactions: new transactions.OAuthTransactionService({
      store: transactionStore,
      pepper: shared.pepper,
      redirects: new transactions.OAuthRedirectPolicy({
        callbackUris: { idp: [REDIRECT_URI] },
        returnTo: ['/', '/settings'],
      }),
    }),
    transactionStore,
    stepUp,
  })
  const security = createSecurity({
    mechanisms: [shared.sessions.mechanism()],
    stepUp: {
      verifier: stepUpVerifierFor(stepUp, (request) => {
        const session = localSessionOf({ ...request, snapshot: AuthorizationSnapshot.empty })
        return session && { securityEpoch: session.securityEpoch, sessionBinding: session.sessionHandle }
      }),
    },
  })
  const api = security.router({ prefix: '/api' })
  api.get('/me', (request, response) => {
    response.json({ accountId: request.security.principal?.id })
  })
  api.post('/account/delete', { guards: [requiresStepUp('delete-account')] }, (_request, response) => {
    response.json({ deleted: true })
  })
  const app = express()
  app.use(security.middleware)
  app.use(
    createOAuthRoutes({
      security,
      lifecycle,
      currentSession: currentLocalSession(security),
      signIn: ({ accountId }, _request, response) => {
        const session = shared.sessions.create(accountId)
        response.append('Set-Cookie', `${SESSION_COOKIE}=${session.id}; Path=/; HttpOnly; SameSite=Lax`)
      },
    }),
  )
  app.use(api)
  const server: Server = createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    client,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await lifecycle.close()
      await jwks.close()
      discovery.close()
      await client.close()
    },
  }
}

describe('OAuth across two app instances sharing Postgres', () => {
  let database: TestDatabase
  let idp: TestIdp
  let a: Instance
  let b: Instance
  const idpBrowser = new TestBrowser()

  beforeAll(async () => {
    database = await createTestDatabase()
    const setup = createPostgresClient({ connectionString: database.connectionString, maxConnections: 1 })
    await migrate(setup)
    await setup.close()
    idp = await TestIdp.start()
    const shared: Shared = {
      connectionString: database.connectionString,
      idp,
      pepper: randomBytes(32),
      keyMaterial: randomBytes(32),
      sessions: new TestSessions(),
    }
    a = await startInstance(shared)
    b = await startInstance(shared)
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await idp?.close()
    await database?.close()
  })

  /** The browser: one cookie jar, talking to whichever instance the load balancer picked. */
  function browserOn(instance: Instance, jar?: HttpClient): HttpClient {
    const browser = new HttpClient(instance.origin)
    for (const [name, value] of jar?.cookies ?? []) browser.cookies.set(name, value)
    return browser
  }

  async function callbackFor(location: string | null, subject: string): Promise<string> {
    idpBrowser.clearCookies()
    idp.nextLogin = { accountId: subject }
    const callback = await idpBrowser.authorize(location as string, REDIRECT_URI)
    return `${callback.pathname}${callback.search}`
  }

  it('a sign-in begun on one instance completes on the other, both ways, into one account', async () => {
    const onA = browserOn(a)
    const begun = await onA.request('/auth/oauth/idp/login?return_to=/settings')
    expect(begun.status).toBe(303)
    const onB = browserOn(b, onA)
    const done = await onB.request(await callbackFor(begun.headers.get('location'), 'pat'), {
      wantsJson: true,
    })
    expect(done.status).toBe(200)
    expect(done.body).toMatchObject({ operation: 'login', provisioned: true, returnTo: '/settings' })
    const accountId = done.body.accountId as string
    expect((await onB.request('/api/me', { wantsJson: true })).body.accountId).toBe(accountId)

    const second = browserOn(b)
    const again = await second.request('/auth/oauth/idp/login')
    const back = browserOn(a, second)
    const signedIn = await back.request(await callbackFor(again.headers.get('location'), 'pat'), {
      wantsJson: true,
    })
    expect(signedIn.body).toMatchObject({ accountId, provisioned: false })
  })

  it('a callback is consumed once across instances: sent to both at once, one wins', async () => {
    const onA = browserOn(a)
    const begun = await onA.request('/auth/oauth/idp/login')
    const callback = await callbackFor(begun.headers.get('location'), 'quinn')
    const onB = browserOn(b, onA)
    const [first, second] = await Promise.all([onA.request(callback), onB.request(callback)])
    expect([first.status, second.status].sort()).toEqual([303, 401])
    const loser = first.status === 401 ? first : second
    expect(loser.body.code).toBe('oauth.transaction.invalid')
    // And a later replay on either instance is refused too.
    expect((await browserOn(a, onA).request(callback)).status).toBe(401)
  })

  it('a reauthentication credential issued on one instance is redeemed exactly once across both', async () => {
    const onA = browserOn(a)
    const begun = await onA.request('/auth/oauth/idp/login')
    expect((await onA.request(await callbackFor(begun.headers.get('location'), 'riley'))).status).toBe(303)
    const reauth = await onA.post('/auth/oauth/idp/reauthenticate/delete-account')
    expect(reauth.status).toBe(303)
    const onB = browserOn(b, onA)
    const confirmed = await onB.request(await callbackFor(reauth.headers.get('location'), 'riley'))
    expect(confirmed.status).toBe(303)
    const cookie = onB.cookieStartingWith('__Host-portcullis-step-up-') as [string, string]
    expect(cookie).toBeDefined()
    const racers = Array.from({ length: 20 }, (_, index) => {
      const racer = browserOn(index % 2 === 0 ? a : b, onB)
      return racer.post('/api/account/delete', { wantsJson: true })
    })
    const statuses = (await Promise.all(racers)).map((response) => response.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(1)
    expect(statuses.filter((status) => status === 401)).toHaveLength(19)
  })
})
