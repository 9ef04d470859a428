// The OAuth routes wired to real local accounts: a password account links the IdP identity, then signing
// in with the IdP establishes a real local session (`establishSignIn` of the local-account routes, the
// `__Host-` session cookie, CSRF on unsafe requests), whose handle binds a reauthentication credential.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AuthorizationSnapshot, requiresStepUp, stepUpVerifierFor } from '@portcullis/core/authorization'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  type SecurityEvent,
} from '@portcullis/core/local-accounts'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OidcFixture, PROVIDER } from '../../../core/test/oidc/support/fixture.js'
import {
  createOAuthRoutes,
  createSecurity,
  currentLocalSession,
  localAccountRoutes,
  localSessionOf,
} from '../../src/index.js'
import { ORIGIN, PASSWORD, SAME_ORIGIN, SESSION_COOKIE, scryptHasher } from '../local-accounts/fixture.js'
import { HttpClient } from './support/http-client.js'

describe('OAuth routes with real local-account sessions', () => {
  let fixture: OidcFixture
  let server: Server
  let origin: string
  const events: SecurityEvent[] = []

  beforeAll(async () => {
    fixture = await OidcFixture.create({ provisionUnknown: false })
    const local = new LocalAccounts({
      profile: 'session',
      // One account store for passwords and provider identities: no glue between two stores.
      accounts: fixture.accountStore,
      sessions: new MemorySessionStore(),
      rateLimits: new MemoryRateLimitStore(),
      hasher: scryptHasher(),
      registration: 'open',
      publicOrigin: ORIGIN,
      passwordScreen: commonPasswordScreen(),
      events: (event) => {
        events.push(event)
      },
    })
    const security = createSecurity({
      mechanisms: local.mechanisms,
      stepUp: {
        verifier: stepUpVerifierFor(fixture.stepUp, (request) => {
          const session = localSessionOf({ ...request, snapshot: AuthorizationSnapshot.empty })
          return session && { securityEpoch: session.securityEpoch, sessionBinding: session.sessionHandle }
        }),
      },
    })
    const localRoutes = localAccountRoutes({ local, security })
    const oauth = createOAuthRoutes({
      security,
      lifecycle: fixture.lifecycle,
      currentSession: currentLocalSession(security),
      signIn: async ({ accountId }, request, response) => {
        const signIn = await localRoutes.establishSignIn(request, response, { accountId })
        return signIn.transport === 'session' ? { csrfToken: signIn.csrfToken } : undefined
      },
      events: (event) => {
        events.push(event)
      },
    })
    const api = security.router({ prefix: '/api' })
    api.get('/session', (request, response) => {
      response.json(localSessionOf(request.security) ?? null)
    })
    api.post('/account/delete', { guards: [requiresStepUp('delete-account')] }, (_request, response) => {
      response.json({ deleted: true })
    })
    const app = express()
    app.use(security.middleware)
    app.use(localRoutes)
    app.use(oauth)
    app.use(api)
    server = createServer(app)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
    await fixture.close()
  })

  async function throughIdp(location: string | null, subject: string): Promise<string> {
    fixture.browser.clearCookies()
    fixture.idp.nextLogin = { accountId: subject }
    const callback = await fixture.authorize(location as string)
    return `${callback.pathname}${callback.search}`
  }

  it('links a password account, signs in with the IdP into a real session, and step-up binds to it', async () => {
    // A password account with a session.
    const password = new HttpClient(origin)
    const registered = await password.post('/auth/register', {
      headers: SAME_ORIGIN,
      json: { username: 'zoe', password: PASSWORD },
      wantsJson: true,
    })
    expect(registered.status).toBe(201)
    const accountId = registered.body.accountId as string
    const login = await password.post('/auth/login', {
      headers: SAME_ORIGIN,
      json: { username: 'zoe', password: PASSWORD },
      wantsJson: true,
    })
    expect(login.status).toBe(200)
    expect(password.cookies.has(SESSION_COOKIE)).toBe(true)
    const passwordSession = (await password.request('/api/session', { wantsJson: true })).body
    expect(passwordSession).toMatchObject({ accountId, securityEpoch: expect.any(Number) })

    // Cross-site unsafe requests never reach the OAuth routes (the local-accounts CSRF guard).
    const crossSite = await password.post(`/auth/oauth/${PROVIDER}/link`, {
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      wantsJson: true,
    })
    expect(crossSite.status).toBe(403)

    // Link the IdP identity, with a step-up credential bound to this very session.
    const credential = await fixture.stepUp.issue({
      accountId,
      purpose: 'oauth-link',
      securityEpoch: passwordSession.securityEpoch as number,
      sessionBinding: passwordSession.sessionHandle as string,
    })
    const begun = await password.post(`/auth/oauth/${PROVIDER}/link`, {
      headers: { ...SAME_ORIGIN, 'portcullis-step-up': credential.reveal() },
    })
    expect(begun.status).toBe(303)
    const linked = await password.request(await throughIdp(begun.headers.get('location'), 'zoe-at-idp'), {
      wantsJson: true,
    })
    expect(linked.status).toBe(200)
    expect(linked.body).toMatchObject({ operation: 'link', status: 'linked' })

    // A fresh browser signs in with the IdP: a real local session for the same account.
    const browser = new HttpClient(origin)
    const started = await browser.request(`/auth/oauth/${PROVIDER}/login?return_to=/settings`)
    const signedIn = await browser.request(await throughIdp(started.headers.get('location'), 'zoe-at-idp'))
    expect(signedIn.status).toBe(303)
    expect(signedIn.headers.get('location')).toBe('/settings')
    expect(
      signedIn.setCookies.some((line) => line.startsWith(`${SESSION_COOKIE}=`) && /HttpOnly/.test(line)),
    ).toBe(true)
    const session = (await browser.request('/api/session', { wantsJson: true })).body
    expect(session.accountId).toBe(accountId)
    expect(session.sessionHandle).not.toBe(passwordSession.sessionHandle)
    expect(events.filter((event) => event.type === 'session.created')).toHaveLength(2)
    expect(events.find((event) => event.type === 'oauth.signed_in')).toMatchObject({
      accountId,
      provisioned: false,
    })

    // Reauthenticate in that session; the credential works there once, and nowhere else.
    const reauth = await browser.post(`/auth/oauth/${PROVIDER}/reauthenticate/delete-account`, {
      headers: SAME_ORIGIN,
    })
    expect(reauth.status).toBe(303)
    const confirmed = await browser.request(await throughIdp(reauth.headers.get('location'), 'zoe-at-idp'))
    expect(confirmed.status).toBe(303)
    const stepUpCookie = browser.cookieStartingWith('__Host-portcullis-step-up-') as [string, string]
    password.cookies.set(...stepUpCookie)
    expect(
      (await password.post('/api/account/delete', { headers: SAME_ORIGIN, wantsJson: true })).status,
    ).toBe(401)

    const confirmedAgain = await browser.post(`/auth/oauth/${PROVIDER}/reauthenticate/delete-account`, {
      headers: SAME_ORIGIN,
    })
    await browser.request(await throughIdp(confirmedAgain.headers.get('location'), 'zoe-at-idp'))
    const deleted = await browser.post('/api/account/delete', { headers: SAME_ORIGIN, wantsJson: true })
    expect(deleted.status).toBe(200)
    expect(
      (await browser.post('/api/account/delete', { headers: SAME_ORIGIN, wantsJson: true })).status,
    ).toBe(401)
  })
})
