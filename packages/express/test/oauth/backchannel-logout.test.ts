// `POST /auth/oauth/{provider}/backchannel-logout` against the real OpenID Provider's back-channel logout:
// a browser signs in with the IdP into a local session (the handle names the IdP session), the IdP logs
// that session out by POSTing its logout token to the route, and the session is refused at once by this
// instance and by a second instance sharing the stores and the revocation notices.
import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  type SecurityEvent,
} from '@portcullis/core/local-accounts'
import { BackchannelLogout } from '@portcullis/core/oidc'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKCHANNEL_REFUSALS, expectRefused } from '../../../core/test/oidc/support/backchannel-refusals.js'
import { OidcFixture, PROVIDER } from '../../../core/test/oidc/support/fixture.js'
import { DEFAULT_CLIENT } from '../../../core/test/oidc/support/test-idp.js'
import {
  createOAuthRoutes,
  createSecurity,
  currentLocalSession,
  localAccountRoutes,
  localSessionOf,
} from '../../src/index.js'
import { ORIGIN, scryptHasher } from '../local-accounts/fixture.js'
import { HttpClient } from './support/http-client.js'

const notices = new MemoryRevocationNotices()
const stores = {
  accounts: new MemoryAccountStore(),
  sessions: new MemorySessionStore({ notices }),
  rateLimits: new MemoryRateLimitStore(),
}
const events: SecurityEvent[] = []
/** The IdP `sid` of each local sign-in, in order. */
const sids: string[] = []
let fixture: OidcFixture
const servers: Server[] = []
let origin: string
let other: string

function instance() {
  return new LocalAccounts({
    profile: 'session',
    ...stores,
    hasher: scryptHasher(),
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    revocation: { notices, maxStalenessSeconds: 60 },
  })
}

/** One app instance: local accounts, the OAuth routes (with back-channel logout) and `/api/session`. */
function app(local: LocalAccounts): express.Express {
  const security = createSecurity({ mechanisms: local.mechanisms })
  const localRoutes = localAccountRoutes({ local, security })
  const oauth = createOAuthRoutes({
    security,
    lifecycle: fixture.lifecycle,
    currentSession: currentLocalSession(security),
    signIn: async ({ accountId, identity }, request, response) => {
      if ((await stores.accounts.getAccount(accountId)) === null) {
        await stores.accounts.createAccount({
          accountId,
          username: `user.${identity.subject}`.toLowerCase(),
          passwordHash: '$test$none',
          now: new Date(),
        })
      }
      if (identity.sessionId !== undefined) sids.push(identity.sessionId)
      await localRoutes.establishSignIn(request, response, { accountId, providerSession: identity })
    },
    backchannelLogout: new BackchannelLogout({
      lifecycle: fixture.lifecycle,
      revokeSessions: (match) => local.revokeProviderSessions(match),
      replay: stores.rateLimits,
    }),
    events: (event) => {
      events.push(event)
    },
  })
  const api = security.router({ prefix: '/api' })
  api.get('/session', (request, response) => {
    response.json(localSessionOf(request.security) ?? null)
  })
  const application = express()
  application.use(security.middleware)
  application.use(localRoutes)
  application.use(oauth)
  application.use(api)
  return application
}

async function listen(handler: RequestListener): Promise<string> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  // The route's URL must be known before the IdP registers the client: listen first, serve later.
  let serve: express.Express | undefined
  origin = await listen((request, response) => {
    serve?.(request, response)
  })
  fixture = await OidcFixture.create({
    idp: {
      clients: [
        { ...DEFAULT_CLIENT, backchannelLogoutUri: `${origin}/auth/oauth/${PROVIDER}/backchannel-logout` },
      ],
    },
  })
  serve = app(instance())
  other = await listen(app(instance()))
})
afterAll(async () => {
  for (const server of servers) {
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }
  await fixture.close()
})

/** A browser signed in with the IdP as `subject`; its cookie jar works on both instances. */
async function signedIn(subject: string): Promise<HttpClient> {
  const browser = new HttpClient(origin)
  fixture.browser.clearCookies()
  fixture.idp.nextLogin = { accountId: subject }
  const started = await browser.request(`/auth/oauth/${PROVIDER}/login`)
  const callback = await fixture.authorize(started.headers.get('location') as string)
  const done = await browser.request(`${callback.pathname}${callback.search}`)
  expect(done.status).toBe(303)
  return browser
}

async function status(browser: HttpClient, at: string): Promise<number> {
  const elsewhere = new HttpClient(at)
  for (const [name, value] of browser.cookies) elsewhere.cookies.set(name, value)
  return (await elsewhere.request('/api/session', { wantsJson: true })).status
}

describe('POST /auth/oauth/{provider}/backchannel-logout', () => {
  it("ends the IdP session's local session on every instance when the IdP logs it out", async () => {
    const browser = await signedIn('bcl-erin')
    const sid = sids.at(-1) as string
    const unrelated = await signedIn('bcl-erin')
    expect(await status(browser, origin)).toBe(200)
    expect(await status(browser, other)).toBe(200)
    await fixture.idp.backchannelLogout('bcl-erin', sid)
    expect(await status(browser, origin)).toBe(401)
    expect(await status(browser, other)).toBe(401)
    expect(await status(unrelated, other)).toBe(200)
    expect(events.filter((event) => event.type === 'oauth.backchannel_logout')).toEqual([
      expect.objectContaining({ provider: PROVIDER, sessions: 1 }),
    ])
  })

  it('answers 400 problem+json, no-store, and ends nothing for a forged or malformed request', async () => {
    const browser = await signedIn('bcl-frank')
    const sid = sids.at(-1) as string
    const client = new HttpClient(origin)
    const forged = await fixture.idp.signLogoutToken({
      iss: fixture.idp.issuer,
      aud: DEFAULT_CLIENT.clientId,
      iat: Math.floor(Date.now() / 1000),
      jti: 'forged-1',
      sub: 'bcl-frank',
      sid,
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
      nonce: 'an ID token, not a logout token',
    })
    const refused = await client.post(`/auth/oauth/${PROVIDER}/backchannel-logout`, {
      form: { logout_token: forged },
    })
    expect(refused.status).toBe(400)
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(refused.headers.get('cache-control')).toBe('no-store')
    expect(refused.body).toMatchObject({ code: 'oidc.logout_token.rejected' })
    expect(refused.text).not.toContain(forged)
    const json = await client.post(`/auth/oauth/${PROVIDER}/backchannel-logout`, {
      json: { logout_token: forged },
    })
    expect(json.status).toBe(400)
    const unknown = await client.post('/auth/oauth/nobody/backchannel-logout', {
      form: { logout_token: forged },
    })
    expect(unknown.status).toBe(404)
    expect(await status(browser, other)).toBe(200)
    expect(events.filter((event) => event.type === 'oauth.backchannel_logout_refused')).toEqual([
      expect.objectContaining({ provider: PROVIDER, reason: 'nonce' }),
      expect.objectContaining({ provider: PROVIDER, reason: 'content-type' }),
    ])
  })
})

describe('back-channel logout refusals: 400 oidc.logout_token.rejected (413 for size), each reported', () => {
  let token: string
  let browser: { cookies: Map<string, string> }
  const path = `/auth/oauth/${PROVIDER}/backchannel-logout`

  beforeAll(async () => {
    browser = await signedIn('bcl-grace')
    // Signed by the provider and naming the session, but an ID token (a nonce): never a logout token.
    token = await fixture.idp.signLogoutToken({
      iss: fixture.idp.issuer,
      aud: DEFAULT_CLIENT.clientId,
      iat: Math.floor(Date.now() / 1000),
      jti: 'refusals-1',
      sub: 'bcl-grace',
      sid: sids.at(-1),
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
      nonce: 'an ID token, not a logout token',
    })
  })

  for (const refusal of BACKCHANNEL_REFUSALS) {
    it(`refuses ${refusal.name}`, async () => {
      await expectRefused(`${origin}${path}`, refusal, token, events, PROVIDER)
    })
  }

  it('routes no other method there, and reports nothing for it', async () => {
    const before = events.length
    for (const method of ['GET', 'PUT', 'DELETE']) {
      expect((await fetch(`${origin}${path}`, { method })).status).toBe(404)
    }
    expect(events.length).toBe(before)
  })

  it('ended no session through any of them', async () => {
    expect(await status(browser as never, origin)).toBe(200)
    expect(await status(browser as never, other)).toBe(200)
  })
})
