import { issueAccessToken } from '@portcullis/core/local-accounts'
import { PostgresAccountStore } from '@portcullis/postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The password re-check before linking (rate limited like sign-in) and the local token API: JSON login for
 * tokens, refresh, and a route that needs a recent password sign-in (`authenticatedWithin(300)`).
 */
let app: TestApp
beforeAll(async () => {
  app = await startTestApp()
}, 120_000)
afterAll(async () => {
  await app?.close()
})

const form = (path: string, body: string, cookie?: string) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      origin: app.url,
      'content-type': 'application/x-www-form-urlencoded',
      ...(cookie === undefined ? {} : { cookie }),
    },
    body,
  })

const json = (path: string, body: unknown) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

const sessionCookie = (response: Response) =>
  (response.headers.getSetCookie().find((line) => line.startsWith('portcullis-session=')) ?? '').split(
    ';',
  )[0] ?? ''

interface TokenPair {
  access_token: string
  refresh_token: string
  token_type: string
  expires_in: number
}

const bearer = (token: string, path: string) =>
  fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${token}` } })

describe('the password re-check before linking', () => {
  it('is rate limited like sign-in: 429 with Retry-After, and limited attempts hash nothing', async () => {
    const password = 'a long enough password'
    const signUp = await form('/sign-up', `username=recheck&password=${encodeURIComponent(password)}`)
    expect(signUp.status).toBe(303)
    const cookie = sessionCookie(signUp)
    const link = (value: string) =>
      form('/account/link/demo', `password=${encodeURIComponent(value)}`, cookie)
    /** The page a refused confirmation redirects to (the confirmation page), read with its flash cookie. */
    const said = async (response: Response) => {
      expect(response.status).toBe(303)
      expect(response.headers.get('location')).toBe('/account/confirm/oauth-link')
      const flash = response.headers.getSetCookie().find((line) => line.startsWith('portcullis-flash=')) ?? ''
      const page = await fetch(`${app.url}/account/confirm/oauth-link`, {
        headers: { accept: 'text/html', cookie: `${cookie}; ${flash.split(';')[0] ?? ''}` },
      })
      return page.text()
    }
    // The per-account sign-in limit (10 in 15 minutes) counts the re-checks too.
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const refused = await link('not the password')
      expect(refused.headers.getSetCookie().join('\n')).not.toContain('portcullis-step-up')
      expect(await said(refused)).toMatch(/id="password-error"[^>]*>That password is wrong\./)
    }
    for (const value of ['not the password', password]) {
      const limited = await link(value)
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(limited.headers.getSetCookie().join('\n')).not.toContain('portcullis-step-up')
      expect(await said(limited)).toContain('Too many attempts')
    }
    // One `login.failed` per hash: ten, none for the two limited attempts.
    const events = await (
      await fetch(`${app.url}/events`, { headers: { cookie, accept: 'text/html' } })
    ).text()
    const own = events.slice(events.indexOf('data-testid="events"'), events.indexOf('</ol>'))
    expect(own.match(/<code>login\.failed<\/code>/g)?.length).toBe(10)
    // Sign-in with the password is limited as well: one counter per account.
    const signIn = await form('/sign-in', `username=recheck&password=${encodeURIComponent(password)}`)
    expect(signIn.status).toBe(429)
  })

  it('a right password issues the oauth-link credential', async () => {
    const signIn = await form(
      '/sign-in',
      `username=bob&password=${encodeURIComponent(app.password('bob'))}&return_to=/account`,
    )
    const cookie = sessionCookie(signIn)
    const linked = await form(
      '/account/link/demo',
      `password=${encodeURIComponent(app.password('bob'))}`,
      cookie,
    )
    expect(linked.status).toBe(303)
    expect(linked.headers.get('location')).toBe('/account/link/demo')
    const stepUp = linked.headers.getSetCookie().find((line) => line.startsWith('portcullis-step-up-')) ?? ''
    expect(stepUp).toMatch(/SameSite=Strict/)
    const next = await fetch(`${app.url}/account/link/demo`, {
      headers: { accept: 'text/html', cookie: `${cookie}; ${stepUp.split(';')[0] ?? ''}` },
    })
    expect(await next.text()).toContain('Continue to the demo IdP')
  })
})

describe('local access tokens', () => {
  it('JSON login for tokens, the recent-sign-in route, refresh, and whoami', async () => {
    const login = await json('/auth/token', { username: 'alice', password: app.password('alice') })
    expect(login.status).toBe(200)
    expect(login.headers.get('cache-control')).toMatch(/no-store/)
    const pair = (await login.json()) as TokenPair
    expect(pair).toMatchObject({ token_type: 'Bearer', expires_in: 300 })

    const recent = await bearer(pair.access_token, '/api/account/recent-sign-in')
    expect(recent.status).toBe(200)
    const body = (await recent.json()) as { principal: { id: string }; authTime: number }
    expect(body.principal.id).toBe('demo-alice')
    expect(Math.abs(body.authTime - Date.now() / 1000)).toBeLessThan(60)

    const whoami = await bearer(pair.access_token, '/api/whoami')
    expect(await whoami.json()).toMatchObject({
      principal: { id: 'demo-alice' },
      mechanisms: [{ mechanism: 'local-token', credentialType: 'local-access-token' }],
    })

    const refresh = await json('/auth/token/refresh', { refresh_token: pair.refresh_token })
    expect(refresh.status).toBe(200)
    const next = (await refresh.json()) as TokenPair
    expect(next.refresh_token).not.toBe(pair.refresh_token)
    expect((await bearer(next.access_token, '/api/account/recent-sign-in')).status).toBe(200)
    // The used refresh token is spent (and replaying it revokes the family).
    expect((await json('/auth/token/refresh', { refresh_token: pair.refresh_token })).status).toBe(401)
  })

  it('a token whose sign-in is older than 300 s gets the RFC 9470 challenge', async () => {
    const accounts = new PostgresAccountStore({ client: app.postgres })
    const account = await accounts.getAccount('demo-carol')
    const now = new Date()
    // Issued now by the app's own signing keys, for a password sign-in ten minutes ago.
    const stale = await issueAccessToken({
      ring: app.keys.localSigningKeys,
      issuer: app.running.publicUrl,
      audience: `${app.running.publicUrl}/api`,
      subject: 'demo-carol',
      lifetimeSeconds: 300,
      securityEpoch: account?.securityEpoch ?? 0,
      sessionBound: 'stale-sign-in',
      clientId: 'local',
      authTime: new Date(now.getTime() - 600_000),
      now,
    })
    expect((await bearer(stale.token, '/api/whoami')).status).toBe(200)
    const refused = await bearer(stale.token, '/api/account/recent-sign-in')
    expect(refused.status).toBe(401)
    const challenge = refused.headers.get('www-authenticate') ?? ''
    expect(challenge).toMatch(/^Bearer error="insufficient_user_authentication"/)
    expect(challenge).toContain('max_age="300"')
  })

  it('the recent-sign-in route takes local access tokens only', async () => {
    const signIn = await form(
      '/sign-in',
      `username=alice&password=${encodeURIComponent(app.password('alice'))}`,
    )
    const session = await fetch(`${app.url}/api/account/recent-sign-in`, {
      headers: { cookie: sessionCookie(signIn) },
    })
    expect(session.status).toBe(401)
  })
})
