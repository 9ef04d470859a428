// The Express OAuth routes over real loopback HTTP, in front of the real OpenID Provider harness of the
// core tests (panva/oidc-provider): the core fixture supplies the IdP, the discovered provider, the
// transaction, account and step-up services; this harness adds a GitHub registration (for "cannot
// reauthenticate"), an in-test session mechanism (cookie -> account), the OAuth routes and a few
// application routes guarded by `requiresStepUp`.
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type AuthenticationMechanism, authenticated, invalid, none } from '@portcullis/core/authentication'
import { AuthorizationSnapshot, requiresStepUp, stepUpVerifierFor } from '@portcullis/core/authorization'
import type { SecurityEvent } from '@portcullis/core/local-accounts'
import { accounts } from '@portcullis/core/oauth'
import { GitHubOAuthProvider, OAuthLifecycleService } from '@portcullis/core/oidc'
import { required } from '@portcullis/core/policy'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import express from 'express'
import {
  DEFAULT_REAUTHENTICATION,
  type FixtureOptions,
  OidcFixture,
  PROVIDER,
  REDIRECT_URI,
} from '../../../../core/test/oidc/support/fixture.js'
import { createOAuthRoutes, createSecurity, currentLocalSession, localSessionOf } from '../../../src/index.js'
import { HttpClient } from './http-client.js'

export { PROVIDER, REDIRECT_URI }

export const SESSION_COOKIE = 'test-session'

interface TestSession {
  readonly accountId: string
  readonly securityEpoch: number
  readonly handle: string
}

/** Sessions of the in-test session mechanism: an opaque cookie value -> account, epoch and handle. */
export class TestSessions {
  readonly #byId = new Map<string, TestSession>()

  create(accountId: string, securityEpoch = 0): { id: string; handle: string } {
    const id = randomBytes(24).toString('base64url')
    const handle = `h-${randomBytes(9).toString('base64url')}`
    this.#byId.set(id, { accountId, securityEpoch, handle })
    return { id, handle }
  }

  end(id: string): void {
    this.#byId.delete(id)
  }

  mechanism(): AuthenticationMechanism {
    return {
      name: 'session',
      securityScheme: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
      authenticate: (source) => {
        const id = source.cookie(SESSION_COOKIE)
        if (id === undefined) return none()
        const session = this.#byId.get(id)
        if (session === undefined) return invalid('test-session: unknown')
        return authenticated(
          { id: session.accountId, kind: 'user' },
          {
            mechanism: 'session',
            credentialType: 'session',
            attributes: { sessionHandle: session.handle, securityEpoch: session.securityEpoch },
          },
        )
      },
    }
  }
}

export interface OAuthAppOptions extends FixtureOptions {
  /** More mechanisms for the security instance (bearer tokens for RFC 9470). */
  readonly mechanisms?: (fixture: OidcFixture) => readonly AuthenticationMechanism[]
  /** Registers more application routes. */
  readonly routes?: (security: ReturnType<typeof createSecurity>) => express.RequestHandler
  /** The OAuth routes' body limit (`createOAuthRoutes({ maxBodyBytes })`). */
  readonly maxBodyBytes?: number
}

export class OAuthApp {
  readonly events: SecurityEvent[] = []
  readonly sessions = new TestSessions()
  readonly fixture: OidcFixture
  readonly lifecycle: OAuthLifecycleService
  readonly security: ReturnType<typeof createSecurity>
  readonly #server: Server
  readonly origin: string

  private constructor(fixture: OidcFixture, lifecycle: OAuthLifecycleService, options: OAuthAppOptions) {
    this.fixture = fixture
    this.lifecycle = lifecycle
    const stepUpVerifier = stepUpVerifierFor(fixture.stepUp, (request) => {
      const session = localSessionOf({
        principal: request.principal,
        evidence: request.evidence,
        snapshot: AuthorizationSnapshot.empty,
      })
      return session === undefined
        ? undefined
        : { securityEpoch: session.securityEpoch, sessionBinding: session.sessionHandle }
    })
    const record = (event: SecurityEvent) => {
      this.events.push(event)
    }
    const security = createSecurity({
      mechanisms: [this.sessions.mechanism(), ...(options.mechanisms?.(fixture) ?? [])],
      stepUp: { verifier: stepUpVerifier, events: record },
      openapi: { info: { title: 'OAuth test app', version: '1.0.0' } },
    })
    this.security = security
    const oauth = createOAuthRoutes({
      security,
      lifecycle,
      auth: required('session'),
      currentSession: currentLocalSession(security, required('session')),
      signIn: ({ accountId }, _request, response) => {
        const session = this.sessions.create(accountId)
        response.append('Set-Cookie', `${SESSION_COOKIE}=${session.id}; Path=/; HttpOnly; SameSite=Lax`)
        return { sessionHandle: session.handle }
      },
      signOut: (_session, request, response) => {
        const id = request.headers.cookie?.match(/test-session=([^;]+)/)?.[1]
        if (id !== undefined) this.sessions.end(id)
        response.append('Set-Cookie', `${SESSION_COOKIE}=; Path=/; Max-Age=0`)
      },
      events: record,
      ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    })
    const api = security.router({ prefix: '/api' })
    api.get('/me', { auth: required('session') }, (request, response) => {
      response.json({ accountId: request.security.principal.id })
    })
    api.post(
      '/account/delete',
      { auth: required('session'), guards: [requiresStepUp('delete-account')] },
      (_request, response) => {
        response.json({ deleted: true })
      },
    )
    api.post(
      '/account/email',
      { auth: required('session'), guards: [requiresStepUp('change-email')] },
      (_request, response) => {
        response.json({ changed: true })
      },
    )
    const app = express()
    app.use(security.middleware)
    app.use(oauth)
    app.use(api)
    if (options.routes !== undefined) app.use(options.routes(security))
    this.#server = createServer(app)
    this.origin = ''
  }

  static async start(options: OAuthAppOptions = {}): Promise<OAuthApp> {
    const fixture = await OidcFixture.create(options)
    const github = new GitHubOAuthProvider({
      clientId: 'Iv1.github-client',
      clientSecret: 'github-secret',
      fetch: async () => {
        throw new TypeError('no network in this test')
      },
      resolveHost: async () => ['93.184.216.34'],
    })
    const lifecycle = new OAuthLifecycleService({
      registrations: [
        {
          provider: fixture.provider,
          accounts: fixture.accounts,
          redirectUri: REDIRECT_URI,
          provisionUnknown: options.provisionUnknown ?? true,
          retainTokens: true,
          scopes: ['openid', 'offline_access', 'profile'],
          allowedScopes: ['email'],
          reauthentication: DEFAULT_REAUTHENTICATION,
          postLogoutRedirectUri: 'https://app.example/',
        },
        {
          provider: github,
          accounts: new accounts.MemoryOAuthAccountStore({
            provider: 'github',
            clientId: 'Iv1.github-client',
            protector: new AESGCMOAuthTransactionProtector({
              activeKey: new OAuthTransactionProtectorKey('test', randomBytes(32)),
            }),
          }),
          redirectUri: 'https://app.example/auth/oauth/github/callback',
        },
      ],
      transactions: fixture.transactions,
      transactionStore: fixture.transactionStore,
      stepUp: fixture.stepUp,
    })
    const app = new OAuthApp(fixture, lifecycle, options)
    await new Promise<void>((resolve) => app.#server.listen(0, '127.0.0.1', resolve))
    const { port } = app.#server.address() as AddressInfo
    ;(app as { origin: string }).origin = `http://127.0.0.1:${port}`
    return app
  }

  client(): HttpClient {
    return new HttpClient(this.origin)
  }

  /** A client holding a fresh in-test session for `accountId`; returns the session handle too. */
  signedInClient(accountId: string, securityEpoch = 0): { client: HttpClient; handle: string } {
    const client = this.client()
    const session = this.sessions.create(accountId, securityEpoch)
    client.cookies.set(SESSION_COOKIE, session.id)
    return { client, handle: session.handle }
  }

  /** Follows an application redirect to the IdP through the IdP; the callback's path and query. */
  async throughIdp(location: string | null): Promise<string> {
    if (location === null) throw new Error('no Location to follow')
    const callback = await this.fixture.authorize(location)
    return `${callback.pathname}${callback.search}`
  }

  /** A complete browser sign-in as the IdP user `subject`; the local account id and session handle. */
  async signIn(client: HttpClient, subject: string): Promise<{ accountId: string; handle: string }> {
    this.fixture.browser.clearCookies()
    this.fixture.idp.nextLogin = { accountId: subject }
    const begun = await client.request(`/auth/oauth/${PROVIDER}/login`)
    const done = await client.request(await this.throughIdp(begun.headers.get('location')), {
      wantsJson: true,
    })
    if (done.status !== 200) throw new Error(`sign-in failed: ${done.status} ${done.text}`)
    const handle = (done.body.signIn as { sessionHandle: string }).sessionHandle
    return { accountId: done.body.accountId as string, handle }
  }

  /** Issues a step-up credential directly (as another confirmation, e.g. a password re-entry, would). */
  async issueStepUp(accountId: string, handle: string, purpose: string): Promise<string> {
    const credential = await this.fixture.stepUp.issue({
      accountId,
      purpose,
      securityEpoch: 0,
      sessionBinding: handle,
    })
    return credential.reveal()
  }

  eventsOf(type: SecurityEvent['type']): SecurityEvent[] {
    return this.events.filter((event) => event.type === type)
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve())
      this.#server.closeAllConnections()
    })
    await this.fixture.close()
  }
}
