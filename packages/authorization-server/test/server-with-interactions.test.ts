import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AppSession, displayNameOf, REDIRECT_URI, STEP_UP_COOKIE } from './interactions/support/app.js'
import { Browser } from './interactions/support/browser.js'
import { callbackOf, consentPage, listed, post } from './interactions/support/flow.js'
import { redeemCode, refresh } from './support/oauth-client.js'
import {
  type AuthorizationUrl,
  authorizationUrl,
  connect,
  type FullStack,
  NATIVE_REDIRECT_URI,
  NOTES,
  redeemedTokens,
  startFullStack,
} from './support/server-with-interactions.js'

const HOUR_AGO = () => new Date(Date.now() - 3600_000)
const seconds = (at: Date) => Math.floor(at.getTime() / 1000)

describe.each(['express', 'fastify', 'express-parsed'] as const)(
  'createAuthorizationServer with createInteractions on %s',
  (mount) => {
    let stack: FullStack
    beforeAll(async () => {
      stack = await startFullStack(mount)
    })
    afterAll(() => stack.close())

    const tokensOf = (location: string | undefined, request: AuthorizationUrl) =>
      redeemedTokens(stack, location, request)
    /** A new account whose browser (signed in an hour ago) consented to notes:read for the web client. */
    const connected = async (name: string) => connect(stack, await stack.newAccount(name), HOUR_AGO())

    describe('1. sign-in, consent, code, token', () => {
      it('sends a visitor without a session to the application sign-in, then consent, a code and a JWT access token', async () => {
        const browser = new Browser(stack.origin)
        const request = authorizationUrl(stack)
        const signIn = await browser.follow(request.url)
        const signInUrl = new URL(signIn.location as string)
        expect(signInUrl.origin).toBe(stack.origin)
        expect(signInUrl.pathname).toBe('/signin')
        const returnTo = signInUrl.searchParams.get('return_to') as string
        expect(returnTo).toMatch(/^\/oauth\/interaction\/[A-Za-z0-9_-]+$/)

        const alice = await stack.newAccount('alice')
        const session = stack.signIn(browser, alice, HOUR_AGO())
        const page = await consentPage(browser, returnTo)
        expect(page.response.headers.get('cache-control')).toBe('no-store')
        expect(page.response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
        // The client is its Client ID Metadata Document, fetched from its https URL.
        expect(stack.documents.hits.get('/web-client.json')).toBeGreaterThanOrEqual(1)
        expect(page.html).toContain(`data-client-host>${new URL(stack.documents.origin).host}<`)
        expect(page.html).toContain('data-client-name>Notes Assistant<')
        expect(page.html).toContain('data-redirect-host>callback.example<')
        expect(page.html).toContain(`data-account>${displayNameOf(alice)}<`)
        expect(listed(page.html, 'data-scopes')).toEqual(['notes:read'])
        expect(listed(page.html, 'data-granted-scopes')).toEqual([])
        expect(listed(page.html, 'data-resources')).toEqual([NOTES])

        const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
        const code = callbackOf(location).get('code') as string
        // PKCE: the code does not redeem without its verifier's proof.
        const stolen = await redeemCode(stack.issuer, stack.webClientId, REDIRECT_URI, code, 'x'.repeat(43), {
          resource: NOTES,
        })
        expect(stolen.status).toBe(400)
        expect(stolen.body.error).toBe('invalid_grant')

        const { claims, refreshToken, grantId } = await tokensOf(location, request)
        expect(claims).toMatchObject({
          sub: alice,
          aud: NOTES,
          client_id: stack.webClientId,
          scope: 'notes:read',
          auth_time: seconds(session.authenticatedAt),
        })
        expect(typeof grantId).toBe('string')
        expect(refreshToken).toBeTruthy()
        const grants = await stack.store.list(alice)
        expect(grants.map((grant) => grant.grantId)).toEqual([grantId])
        expect(grants[0]).toMatchObject({
          clientId: stack.webClientId,
          scopes: ['notes:read'],
          resources: [NOTES],
        })
      })
    })

    describe('2. consent once per client and account, on every browser', () => {
      it('another browser of the same account gets no consent page; a larger scope set asks for the new scope only', async () => {
        const first = await connected('bob')
        const bob = first.accountId
        const other = new Browser(stack.origin)
        stack.signIn(other, bob, HOUR_AGO())

        const same = authorizationUrl(stack)
        const direct = await other.follow(same.url)
        expect(direct.response.status).toBe(303)
        const again = await tokensOf(direct.location, same)
        expect(again.grantId).toBe(first.grantId)
        expect(again.claims).toMatchObject({ sub: bob, scope: 'notes:read' })

        const grown = authorizationUrl(stack, { scope: 'notes:read notes:write' })
        const page = await consentPage(other, grown.url)
        expect(listed(page.html, 'data-scopes')).toEqual(['notes:write'])
        expect(listed(page.html, 'data-granted-scopes')).toEqual(['notes:read'])
        const { location } = await post(other, page.url, { csrf: page.csrf, decision: 'approve' })
        const wider = await tokensOf(location, grown)
        expect(wider.grantId).toBe(first.grantId)
        expect(String(wider.claims.scope).split(' ').sort()).toEqual(['notes:read', 'notes:write'])

        // The first browser now has the larger grant too: no consent page.
        const back = authorizationUrl(stack, { scope: 'notes:read notes:write' })
        const answered = await first.browser.follow(back.url)
        expect((await tokensOf(answered.location, back)).grantId).toBe(first.grantId)
        const grants = await stack.store.list(bob)
        expect(grants).toHaveLength(1)
        expect(grants[0]?.scopes).toEqual(['notes:read', 'notes:write'])
      })

      it('a grant of another account is never used, though the browser held it', async () => {
        const { browser } = await connected('erin')
        // Frank signs into the application in Erin's browser: nothing of Erin's grant carries over.
        const frank = await stack.newAccount('frank')
        stack.signIn(browser, frank, HOUR_AGO())
        const request = authorizationUrl(stack)
        const { response, location } = await browser.follow(request.url)
        expect(location).toBeUndefined()
        // oidc-provider ends its own session of the previous account (an auto-submitted form to its
        // end-session confirmation) before it signs the new one in.
        const html = await response.text()
        const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] as string
        expect(new URL(action).pathname).toBe('/oauth/session/end/confirm')
        const fields = Object.fromEntries(
          [...html.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
        )
        const next = await post(browser, action, fields as Record<string, string>)
        expect(next.location).toBeUndefined()
        const page = await next.response.text()
        expect(page).toContain(`data-account>${displayNameOf(frank)}<`)
        expect(listed(page, 'data-scopes')).toEqual(['notes:read'])
        const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string
        const done = await post(browser, next.url, { csrf, decision: 'approve' })
        const tokens = await tokensOf(done.location, request)
        expect(tokens.claims.sub).toBe(frank)
        expect((await stack.store.list(frank)).map((grant) => grant.grantId)).toEqual([tokens.grantId])
      })

      it('a native client (loopback redirect) is confirmed on every authorization, asking no new scope', async () => {
        const carol = await stack.newAccount('carol')
        const browser = new Browser(stack.origin)
        stack.signIn(browser, carol, HOUR_AGO())
        const request = () =>
          authorizationUrl(
            { issuer: stack.issuer, webClientId: stack.nativeClientId },
            { redirect_uri: NATIVE_REDIRECT_URI },
          ).url
        const page = await consentPage(browser, request())
        expect(listed(page.html, 'data-scopes')).toEqual(['notes:read'])
        const first = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
        expect(new URL(first.location as string).searchParams.get('code')).toBeTruthy()

        const other = new Browser(stack.origin)
        stack.signIn(other, carol, HOUR_AGO())
        const confirm = await consentPage(other, request())
        expect(confirm.html).toContain('go on acting as you')
        expect(listed(confirm.html, 'data-scopes')).toEqual([])
        expect(listed(confirm.html, 'data-granted-scopes')).toEqual(['notes:read'])
        const second = await post(other, confirm.url, { csrf: confirm.csrf, decision: 'approve' })
        const redirect = new URL(second.location as string)
        expect(`${redirect.origin}${redirect.pathname}`).toBe(NATIVE_REDIRECT_URI)
        expect(redirect.searchParams.get('code')).toBeTruthy()
        const grants = (await stack.store.list(carol)).filter(
          (grant) => grant.clientId === stack.nativeClientId,
        )
        expect(grants).toHaveLength(1)
      })
    })

    describe('3. prompt=login goes through the step-up reauthentication', () => {
      async function reauthenticationReturn(browser: Browser, request: { url: string }) {
        const { location } = await browser.follow(request.url)
        const url = new URL(location as string)
        expect(url.pathname).toBe('/reauthenticate')
        expect(url.searchParams.get('purpose')).toBe('oauth-authorize')
        const returnTo = url.searchParams.get('return_to') as string
        expect(returnTo).toMatch(/^\/oauth\/interaction\/[A-Za-z0-9_-]+$/)
        return returnTo
      }

      it("gives a code whose token's auth_time is the reauthentication; the credential is never accepted twice", async () => {
        const { browser, session } = await connected('dave')
        const request = authorizationUrl(stack, { prompt: 'login' })
        const returnTo = await reauthenticationReturn(browser, request)
        const at = new Date()
        const credential = await stack.reauthenticate(browser, session, { authenticatedAt: at })
        const { location } = await browser.follow(returnTo)
        const tokens = await tokensOf(location, request)
        expect(tokens.claims.sub).toBe(session.accountId)
        expect(tokens.claims.auth_time).toBe(seconds(at))
        expect(tokens.claims.auth_time).toBeGreaterThan(seconds(session.authenticatedAt))
        // A refresh keeps the authentication time of the code.
        const refreshed = await refresh(stack.issuer, stack.webClientId, tokens.refreshToken, {
          resource: NOTES,
        })
        expect(refreshed.status).toBe(200)
        const later = await stack.verifyAccessToken(refreshed.body.access_token as string, NOTES)
        expect(later.auth_time).toBe(seconds(at))

        // Replayed (the burned credential is still in the cookie): reauthentication is asked again.
        expect(browser.cookie(STEP_UP_COOKIE)).toBe(credential)
        const replay = authorizationUrl(stack, { prompt: 'login' })
        const replayReturn = await reauthenticationReturn(browser, replay)
        const stillAsked = await browser.follow(replayReturn)
        expect(new URL(stillAsked.location as string).pathname).toBe('/reauthenticate')
        expect(await consumeAgain(session, credential)).toEqual({ kind: 'rejected', reason: 'unknown' })
      })

      it('max_age shorter than the session asks for reauthentication; a credential of another purpose is refused', async () => {
        // oidc-provider takes max_age only with the openid scope (an OpenID Connect parameter).
        const { browser, session } = await connected('grace')
        const request = authorizationUrl(stack, { scope: 'openid notes:read', max_age: '600' })
        const returnTo = await reauthenticationReturn(browser, request)
        await stack.reauthenticate(browser, session, { purpose: 'delete-account' })
        const refused = await browser.follow(returnTo)
        expect(new URL(refused.location as string).pathname).toBe('/reauthenticate')

        const at = new Date()
        await stack.reauthenticate(browser, session, { authenticatedAt: at })
        const page = await consentPage(browser, returnTo)
        expect(listed(page.html, 'data-scopes')).toEqual(['openid'])
        expect(listed(page.html, 'data-granted-scopes')).toEqual(['notes:read'])
        const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
        const tokens = await tokensOf(location, request)
        expect(tokens.claims.auth_time).toBe(seconds(at))
      })

      async function consumeAgain(session: AppSession, token: string) {
        return stack.stepUp.consume({
          token,
          accountId: session.accountId,
          purpose: 'oauth-authorize',
          securityEpoch: session.securityEpoch,
          sessionBinding: session.sessionHandle,
        })
      }
    })

    it('answers an unknown or malformed interaction with its own error pages', async () => {
      const browser = new Browser(stack.origin)
      const unknown = await browser.request(`${stack.issuer}/interaction/unknown-uid`)
      expect(unknown.status).toBe(400)
      expect(await unknown.text()).toContain('Authorization expired')
      const malformed = await browser.request(`${stack.issuer}/interaction/a/b`, {
        headers: { accept: 'application/json' },
      })
      expect(malformed.status).toBe(404)
      expect(malformed.headers.get('content-type')).toBe('application/problem+json')
      expect(await malformed.json()).toMatchObject({ code: 'authorization_server.interaction_not_found' })
    })

    describe('4. deny and forged consent forms', () => {
      it('deny answers access_denied at the redirect URI and grants nothing', async () => {
        const frank = await stack.newAccount('frank')
        const browser = new Browser(stack.origin)
        stack.signIn(browser, frank, HOUR_AGO())
        const request = authorizationUrl(stack, { scope: 'notes:write' })
        const page = await consentPage(browser, request.url)
        const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'deny' })
        const callback = callbackOf(location)
        expect(callback.get('error')).toBe('access_denied')
        expect(callback.get('state')).toBe(request.state)
        expect(callback.get('code')).toBeNull()
        const grants = await stack.store.list(frank)
        expect(grants.some((grant) => grant.scopes.includes('notes:write'))).toBe(false)
      })

      it('refuses a forged CSRF token, a missing cookie and a foreign origin; the genuine form still works', async () => {
        const erin = await stack.newAccount('erin')
        const browser = new Browser(stack.origin)
        stack.signIn(browser, erin, HOUR_AGO())
        const request = authorizationUrl(stack, { scope: 'notes:write' })
        const page = await consentPage(browser, request.url)
        const [nonce = '', mac = ''] = page.csrf.split('.')
        const flipped = `${nonce}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`
        for (const csrf of [flipped, `${nonce}.`, '', 'x'.repeat(43)]) {
          const forged = await post(browser, page.url, { csrf, decision: 'approve' })
          expect(forged.response.status).toBe(403)
          expect(await forged.response.text()).toContain('Request refused')
        }
        const foreign = await browser.follow(page.url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
          body: new URLSearchParams({ csrf: page.csrf, decision: 'approve' }).toString(),
        })
        expect(foreign.response.status).toBe(403)
        const cookie = browser.cookie('portcullis_consent') as string
        browser.deleteCookie('portcullis_consent')
        const cookieless = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
        expect(cookieless.response.status).toBe(403)
        expect((await stack.store.list(erin)).some((grant) => grant.scopes.includes('notes:write'))).toBe(
          false,
        )

        browser.setCookie('portcullis_consent', cookie, new URL(page.url).pathname)
        const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
        expect((await tokensOf(location, request)).claims.scope).toBe('notes:write')
      })
    })

    describe('5. disconnect', () => {
      it('ends the grant: refresh is refused and connectedApps no longer lists it', async () => {
        const { accountId: alice, grantId, refreshToken, browser } = await connected('alice')
        const apps = await stack.server.connectedApps(alice)
        expect(apps.find((app) => app.grantId === grantId)).toMatchObject({
          clientId: stack.webClientId,
          clientName: 'Notes Assistant',
          clientHost: new URL(stack.documents.origin).host,
        })
        expect(await stack.server.disconnect(await stack.newAccount('bob'), grantId as string)).toBe(false)
        expect(await stack.server.disconnect(alice, grantId as string)).toBe(true)
        expect(stack.revoked).toContain(grantId)
        const refused = await refresh(stack.issuer, stack.webClientId, refreshToken, { resource: NOTES })
        expect(refused.status).toBe(400)
        expect(refused.body.error).toBe('invalid_grant')
        expect((await stack.server.connectedApps(alice)).some((app) => app.grantId === grantId)).toBe(false)

        // Consent is asked again, on the browser that made the ended grant too.
        const request = authorizationUrl(stack)
        const page = await consentPage(browser, request.url)
        expect(listed(page.html, 'data-scopes')).toEqual(['notes:read'])
      })

      it("a browser whose own grant was ended finds the account's newer grant (no second consent, no second grant)", async () => {
        const first = await connected('dave')
        const dave = first.accountId
        expect(await stack.server.disconnect(dave, first.grantId as string)).toBe(true)
        const second = await connect(stack, dave, HOUR_AGO())
        expect(second.grantId).not.toBe(first.grantId)
        const request = authorizationUrl(stack)
        const { location } = await first.browser.follow(request.url)
        expect((await tokensOf(location, request)).grantId).toBe(second.grantId)
        const grants = (await stack.store.list(dave)).filter((grant) => grant.clientId === stack.webClientId)
        expect(grants.map((grant) => grant.grantId)).toEqual([second.grantId])
      })
    })

    describe('6. a disabled account', () => {
      it('cannot complete an authorization, on its browser or a new one, and its tokens are refused', async () => {
        const { accountId: carol, browser, refreshToken, grantId } = await connected('carol')
        // A code issued before the account is disabled.
        const pending = authorizationUrl(stack)
        const issued = await browser.follow(pending.url)
        const pendingCode = callbackOf(issued.location).get('code') as string

        await stack.accounts.setAccountStatus({ accountId: carol, status: 'disabled', now: new Date() })
        // The application's session still says carol: the server itself refuses the account.
        const fresh = new Browser(stack.origin)
        stack.signIn(fresh, carol, HOUR_AGO())
        for (const agent of [browser, fresh]) {
          const request = authorizationUrl(stack)
          const { location } = await agent.follow(request.url)
          const callback = callbackOf(location)
          expect(callback.get('error')).toBe('access_denied')
          expect(callback.get('state')).toBe(request.state)
          expect(callback.get('code')).toBeNull()
        }

        const late = await redeemCode(
          stack.issuer,
          stack.webClientId,
          REDIRECT_URI,
          pendingCode,
          pending.verifier,
          {
            resource: NOTES,
          },
        )
        expect(late.status).toBe(400)
        expect(late.body.error).toBe('invalid_grant')
        const refused = await refresh(stack.issuer, stack.webClientId, refreshToken, { resource: NOTES })
        expect(refused.status).toBe(400)
        expect(refused.body.error).toBe('invalid_grant')
        expect(await stack.store.status(grantId as string)).toBeUndefined()
        expect(await stack.server.connectedApps(carol)).toEqual([])
      })
    })
  },
)
