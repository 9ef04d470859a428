// `POST /auth/oauth/{provider}/backchannel-logout` on Hono over `@hono/node-server`: the same route table
// entry as on Express and Fastify, its body read from the Web request stream.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { type ServerType, serve } from '@hono/node-server'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  type PasswordHasher,
  type SecurityEvent,
} from '@portcullis/core/local-accounts'
import { BackchannelLogout } from '@portcullis/core/oidc'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKCHANNEL_REFUSALS, expectRefused } from '../../core/test/oidc/support/backchannel-refusals.js'
import { OidcFixture, PROVIDER } from '../../core/test/oidc/support/fixture.js'
import { DEFAULT_CLIENT } from '../../core/test/oidc/support/test-idp.js'
import {
  createOAuthRoutes,
  createSecurity,
  currentLocalSession,
  localAccountRoutes,
  localSessionOf,
  securityOf,
} from '../src/index.js'

const ORIGIN = 'https://app.example'

function scryptHasher(): PasswordHasher {
  const derive = (password: string, salt: Buffer) =>
    new Promise<Buffer>((resolve, reject) =>
      scrypt(password, salt, 32, { N: 1024 }, (error, key) => (error ? reject(error) : resolve(key))),
    )
  return {
    async hash(password) {
      const salt = randomBytes(16)
      return `$scrypt$${salt.toString('base64url')}$${(await derive(password, salt)).toString('base64url')}`
    },
    async verify(encoded, password) {
      const [, kind, salt, hash] = encoded.split('$')
      if (kind !== 'scrypt' || salt === undefined || hash === undefined) return false
      const expected = Buffer.from(hash, 'base64url')
      const actual = await derive(password, Buffer.from(salt, 'base64url'))
      return expected.length === actual.length && timingSafeEqual(expected, actual)
    },
    needsRehash: () => false,
  }
}

/** A fetch client with a cookie jar (name → value), no redirects followed. */
class Browser {
  readonly cookies = new Map<string, string>()
  constructor(readonly origin: string) {}
  async request(path: string, init: { method?: string; body?: string; type?: string; json?: boolean } = {}) {
    const headers: Record<string, string> = {}
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    }
    if (init.type !== undefined) headers['content-type'] = init.type
    if (init.json === true) headers.accept = 'application/json'
    const response = await fetch(new URL(path, this.origin), {
      method: init.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(init.body === undefined ? {} : { body: init.body }),
    })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      const name = pair.slice(0, at)
      const value = pair.slice(at + 1)
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    const text = await response.text()
    return { status: response.status, headers: response.headers, text }
  }
}

const notices = new MemoryRevocationNotices()
const stores = {
  accounts: new MemoryAccountStore(),
  sessions: new MemorySessionStore({ notices }),
  rateLimits: new MemoryRateLimitStore(),
}
const events: SecurityEvent[] = []
const sids: string[] = []
let fixture: OidcFixture
const servers: ServerType[] = []
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

function app(local: LocalAccounts): Hono {
  const security = createSecurity({ mechanisms: local.mechanisms })
  const hono = new Hono()
  hono.use(security.middleware)
  hono.onError(security.onError)
  const localRoutes = localAccountRoutes(hono, security, { local })
  createOAuthRoutes(hono, security, {
    lifecycle: fixture.lifecycle,
    currentSession: currentLocalSession(security),
    signIn: async ({ accountId, identity }, c) => {
      if ((await stores.accounts.getAccount(accountId)) === null) {
        await stores.accounts.createAccount({
          accountId,
          username: `user.${identity.subject}`.toLowerCase(),
          passwordHash: '$test$none',
          now: new Date(),
        })
      }
      if (identity.sessionId !== undefined) sids.push(identity.sessionId)
      await localRoutes.establishSignIn(c, { accountId, providerSession: identity })
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
  hono.get('/api/session', security.route(), (c) => c.json(localSessionOf(securityOf(c)) ?? null))
  security.ready(hono)
  return hono
}

/** Serves `fetch` with `@hono/node-server` on a free loopback port. */
function listen(fetch: (request: Request, env: unknown) => Response | Promise<Response>): Promise<string> {
  return new Promise((resolve) => {
    const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      resolve(`http://127.0.0.1:${info.port}`)
    })
    servers.push(server)
  })
}

beforeAll(async () => {
  let serving: Hono | undefined
  // the provider needs this instance's back-channel URL before the app (which needs the provider) exists
  origin = await listen((request, env) =>
    serving === undefined ? new Response(null, { status: 503 }) : serving.fetch(request, env),
  )
  fixture = await OidcFixture.create({
    idp: {
      clients: [
        { ...DEFAULT_CLIENT, backchannelLogoutUri: `${origin}/auth/oauth/${PROVIDER}/backchannel-logout` },
      ],
    },
  })
  serving = app(instance())
  const second = app(instance())
  other = await listen((request, env) => second.fetch(request, env))
})
afterAll(async () => {
  for (const server of servers) {
    await new Promise<void>((resolve) => {
      ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
      server.close(() => resolve())
    })
  }
  await fixture.close()
})

async function signedIn(subject: string): Promise<Browser> {
  const browser = new Browser(origin)
  fixture.browser.clearCookies()
  fixture.idp.nextLogin = { accountId: subject }
  const started = await browser.request(`/auth/oauth/${PROVIDER}/login`)
  const callback = await fixture.authorize(started.headers.get('location') as string)
  const done = await browser.request(`${callback.pathname}${callback.search}`)
  expect(done.status).toBe(303)
  return browser
}

async function status(browser: Browser, at: string): Promise<number> {
  const elsewhere = new Browser(at)
  for (const [name, value] of browser.cookies) elsewhere.cookies.set(name, value)
  const answer = await elsewhere.request('/api/session', { json: true })
  return answer.text === 'null' || answer.status !== 200 ? 401 : 200
}

describe('POST /auth/oauth/{provider}/backchannel-logout (Hono)', () => {
  it("ends the IdP session's local session on every instance when the IdP logs it out", async () => {
    const browser = await signedIn('hbcl-erin')
    const sid = sids.at(-1) as string
    const unrelated = await signedIn('hbcl-erin')
    expect(await status(browser, origin)).toBe(200)
    expect(await status(browser, other)).toBe(200)
    await fixture.idp.backchannelLogout('hbcl-erin', sid)
    expect(await status(browser, origin)).toBe(401)
    expect(await status(browser, other)).toBe(401)
    expect(await status(unrelated, other)).toBe(200)
    expect(events.filter((event) => event.type === 'oauth.backchannel_logout')).toEqual([
      expect.objectContaining({ provider: PROVIDER, sessions: 1 }),
    ])
  })

  it('answers 400 problem+json, no-store, and ends nothing for a forged or malformed request', async () => {
    const browser = await signedIn('hbcl-frank')
    const sid = sids.at(-1) as string
    const client = new Browser(origin)
    const forged = await fixture.idp.signLogoutToken({
      iss: fixture.idp.issuer,
      aud: DEFAULT_CLIENT.clientId,
      iat: Math.floor(Date.now() / 1000),
      jti: 'forged-1',
      sub: 'hbcl-frank',
      sid,
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
      nonce: 'an ID token, not a logout token',
    })
    const path = `/auth/oauth/${PROVIDER}/backchannel-logout`
    const form = 'application/x-www-form-urlencoded'
    const refused = await client.request(path, {
      method: 'POST',
      type: form,
      body: new URLSearchParams({ logout_token: forged }).toString(),
    })
    expect(refused.status).toBe(400)
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(refused.headers.get('cache-control')).toBe('no-store')
    expect(JSON.parse(refused.text)).toMatchObject({ code: 'oidc.logout_token.rejected' })
    expect(refused.text).not.toContain(forged)
    const json = await client.request(path, {
      method: 'POST',
      type: 'application/json',
      body: JSON.stringify({ logout_token: forged }),
    })
    expect(json.status).toBe(400)
    const unknown = await client.request('/auth/oauth/nobody/backchannel-logout', {
      method: 'POST',
      type: form,
      body: new URLSearchParams({ logout_token: forged }).toString(),
    })
    expect(unknown.status).toBe(404)
    const tooLarge = await client.request(path, {
      method: 'POST',
      type: form,
      body: `logout_token=${'a'.repeat(32 * 1024)}`,
    })
    expect(tooLarge.status).toBe(413)
    expect(await status(browser, other)).toBe(200)
    expect(events.filter((event) => event.type === 'oauth.backchannel_logout_refused')).toEqual([
      expect.objectContaining({ provider: PROVIDER, reason: 'nonce' }),
      expect.objectContaining({ provider: PROVIDER, reason: 'content-type' }),
      expect.objectContaining({ provider: PROVIDER, reason: 'body-too-large' }),
    ])
  })
})

describe('back-channel logout refusals: 400 oidc.logout_token.rejected (413 for size), each reported', () => {
  let token: string
  let browser: { cookies: Map<string, string> }
  const path = `/auth/oauth/${PROVIDER}/backchannel-logout`

  beforeAll(async () => {
    browser = await signedIn('hbcl-grace')
    // Signed by the provider and naming the session, but an ID token (a nonce): never a logout token.
    token = await fixture.idp.signLogoutToken({
      iss: fixture.idp.issuer,
      aud: DEFAULT_CLIENT.clientId,
      iat: Math.floor(Date.now() / 1000),
      jti: 'refusals-1',
      sub: 'hbcl-grace',
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
