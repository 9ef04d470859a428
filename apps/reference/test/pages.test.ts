import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The pages over plain HTTP (what the browser tests show, without a browser): who may see what, CSRF on
 * every form, another user's key, browsers get HTML errors and API clients problem+json.
 */
let app: TestApp
const cookies = new Map<string, string>()

beforeAll(async () => {
  app = await startTestApp()
  for (const username of ['alice', 'bob']) cookies.set(username, await signIn(username))
})
afterAll(async () => {
  await app?.close()
})

async function signIn(username: string): Promise<string> {
  const response = await fetch(`${app.url}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: app.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: `username=${username}&password=${encodeURIComponent(app.password(username))}&return_to=/keys`,
  })
  expect(response.status).toBe(303)
  expect(response.headers.get('location')).toBe('/keys')
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('portcullis-session=')) ?? ''
  expect(cookie).toMatch(/HttpOnly/)
  expect(cookie).toMatch(/SameSite=Lax/)
  return cookie.split(';')[0] ?? ''
}

const page = (path: string, username?: string, headers: Record<string, string> = {}) =>
  fetch(`${app.url}${path}`, {
    redirect: 'manual',
    headers: {
      accept: 'text/html',
      ...(username ? { cookie: cookies.get(username) ?? '' } : {}),
      ...headers,
    },
  })

const post = (
  path: string,
  username: string,
  body: string,
  headers: Record<string, string> = { origin: app.url },
) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: cookies.get(username) ?? '',
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    body,
  })

/** The page a form's 303 leads to, read with the flash cookie it set (what the browser does next). */
async function landing(response: Response, username: string): Promise<Response> {
  expect(response.status).toBe(303)
  const flash = response.headers.getSetCookie().find((line) => line.startsWith('portcullis-flash=')) ?? ''
  return page(response.headers.get('location') ?? '/', username, {
    cookie: `${cookies.get(username) ?? ''}; ${flash.split(';')[0] ?? ''}`,
  })
}
const issuedKey = async (response: Response, username: string) =>
  /data-testid="issued-key">([^<]+)</.exec(await (await landing(response, username)).text())?.[1] ?? ''

describe('pages', () => {
  it('the home page, the stylesheet and the MCP page are public', async () => {
    expect((await page('/')).status).toBe(200)
    const css = await fetch(`${app.url}/assets/portcullis.css`)
    expect(css.headers.get('content-type')).toMatch(/^text\/css/)
    expect((await page('/agents')).status).toBe(200)
  })

  it('pages that need a user: an HTML 401 page for browsers, problem+json for API clients', async () => {
    const browser = await page('/keys')
    expect(browser.status).toBe(401)
    expect(browser.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await browser.text()).toContain('/sign-in?return_to=%2Fkeys')
    const api = await fetch(`${app.url}/keys`)
    expect(api.status).toBe(401)
    expect(api.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(await api.json()).toMatchObject({ code: 'authentication.required' })
  })

  it('tenant pages follow the snapshot, whatever the URL says', async () => {
    expect((await page('/tenants/acme', 'alice')).status).toBe(200)
    expect((await page('/tenants/acme/settings', 'alice')).status).toBe(200)
    expect((await page('/tenants/globex', 'alice')).status).toBe(200)
    expect((await page('/tenants/globex/billing', 'alice')).status).toBe(403)
    expect((await page('/tenants/initech', 'alice')).status).toBe(403)
    expect((await page('/tenants/acme/billing', 'bob')).status).toBe(200)
    expect((await page('/tenants/acme/settings', 'bob')).status).toBe(403)
    const switched = await page('/tenants?switch=globex', 'bob')
    expect(switched.status).toBe(303)
    expect(switched.headers.get('location')).toBe('/tenants/globex')
    expect((await page('/tenants?switch=..%2Fkeys', 'bob')).status).toBe(200)
  })

  it('another user’s key cannot be rotated or revoked (404, no oracle)', async () => {
    const issued = await post('/keys', 'alice', 'label=mine&scopes=all&tenant=&days=7')
    // POST/redirect/GET: the key is shown by the page the form redirects to, once.
    expect(issued.headers.get('location')).toBe('/keys')
    const key = await issuedKey(issued, 'alice')
    expect(key).toMatch(/^demo_/)
    const keyId = key.slice('demo_'.length, 'demo_'.length + 16)
    expect((await page(`/keys/${keyId}/revoke`, 'bob')).status).toBe(404)
    expect((await post(`/keys/${keyId}/revoke`, 'bob', '')).status).toBe(404)
    expect((await post(`/keys/${keyId}/rotate`, 'bob', 'overlap=0')).status).toBe(404)
    expect((await fetch(`${app.url}/api/whoami`, { headers: { 'x-api-key': key } })).status).toBe(200)
    expect(await (await page('/keys', 'bob')).text()).not.toContain(keyId)
  })

  it('a new key is shown by the key page only: not by another page that reads the same notice', async () => {
    const issued = await post('/keys', 'alice', 'label=elsewhere&scopes=all&tenant=&days=7')
    const flash = issued.headers.getSetCookie().find((line) => line.startsWith('portcullis-flash=')) ?? ''
    const codes = await page('/account/totp/codes', 'alice', {
      cookie: `${cookies.get('alice') ?? ''}; ${flash.split(';')[0] ?? ''}`,
    })
    const body = await codes.text()
    expect(body).not.toMatch(/demo_[A-Za-z0-9_-]{16}_/)
    expect(body).toContain('were shown once')
    // Another account's session with alice's notice: nothing either.
    const bob = await page('/keys', 'bob', {
      cookie: `${cookies.get('bob') ?? ''}; ${flash.split(';')[0] ?? ''}`,
    })
    expect(await bob.text()).not.toContain('data-testid="issued-key"')
  })

  it('the key page lists the user’s own keys with their state, and no service key of the same id', async () => {
    const rotated = await app.apiKeys.issue({ ownerId: 'demo-bob', ownerKind: 'user', label: 'to-rotate' })
    const replacement = await app.apiKeys.rotate(rotated.keyId, { overlapSeconds: 3600 })
    const revoked = await app.apiKeys.issue({ ownerId: 'demo-bob', ownerKind: 'user', label: 'to-revoke' })
    await app.apiKeys.revoke(revoked.keyId)
    const service = await app.apiKeys.issue({ ownerId: 'demo-bob', ownerKind: 'service', label: 'svc' })
    const body = await (await page('/keys', 'bob')).text()
    const rows = [
      ...body.matchAll(/<tr data-key-id="([^"]+)">[\s\S]*?data-testid="status" data-status="(\w+)"/g),
    ].map(([, keyId, status]) => [keyId, status])
    const states = Object.fromEntries(rows)
    expect([states[rotated.keyId], states[replacement.keyId], states[revoked.keyId]]).toEqual([
      'overlap',
      'active',
      'revoked',
    ])
    expect(body).not.toContain(service.keyId)
  })

  it('a key limited to one tenant cannot read another tenant of its owner', async () => {
    const issued = await post('/keys', 'bob', 'label=acme-only&scopes=all&tenant=acme&days=7')
    const key = await issuedKey(issued, 'bob')
    const read = (tenant: string) =>
      fetch(`${app.url}/api/tenants/${tenant}/projection`, { headers: { 'x-api-key': key } })
    // bob owns globex and does billing for acme; this key carries acme only.
    expect((await read('acme')).status).toBe(200)
    expect((await read('globex')).status).toBe(403)
  })

  it('forms refuse requests without a same-origin Origin (CSRF), signing in included', async () => {
    // The local-accounts CSRF guard runs before every route: 403 `local.csrf_refused`.
    for (const headers of [
      {},
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      const refused = await post('/keys', 'alice', 'label=x', headers)
      expect(refused.status).toBe(403)
      expect(await refused.json()).toMatchObject({ code: 'local.csrf_refused' })
    }
    const login = await fetch(`${app.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=alice&password=${encodeURIComponent(app.password('alice'))}`,
    })
    expect(login.status).toBe(403)
    expect(login.headers.getSetCookie()).toEqual([])
  })

  it('the two-step sign-in and TOTP forms refuse cross-site posts too', async () => {
    for (const path of ['/account/totp/enroll', '/account/totp/confirm', '/account/totp/disable']) {
      const refused = await post(path, 'alice', `password=${encodeURIComponent(app.password('alice'))}`, {
        origin: 'https://evil.example',
      })
      expect(refused.status, path).toBe(403)
    }
    const second = await fetch(`${app.url}/sign-in/second-factor`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'pending_token=x&code=123456',
    })
    expect(second.status).toBe(403)
    expect(second.headers.getSetCookie()).toEqual([])
    // Same-origin, but a pending sign-in nobody started: the sign-in page again, no session.
    const unknown = await fetch(`${app.url}/sign-in/second-factor`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: app.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: `pending_token=${'A'.repeat(43)}&code=123456`,
    })
    expect(unknown.status).toBe(401)
    expect(await unknown.text()).toContain('enter your password again')
    expect(unknown.headers.getSetCookie().some((line) => line.includes('session='))).toBe(false)
  })

  it('on a plain-http 127.0.0.1 origin passkeys are off, and the account page says how to turn them on', async () => {
    const account = await (await page('/account', 'alice')).text()
    expect(account).toContain('data-testid="passkeys-off"')
    expect(account).toContain('PORTCULLIS_PUBLIC_URL=http://localhost:PORT')
    expect((await page('/sign-in')).status).toBe(200)
    expect(await (await page('/sign-in')).text()).not.toContain('data-passkey-sign-in')
  })

  it('a forged or tampered session cookie is refused, never treated as absent', async () => {
    const [name, value = ''] = (cookies.get('alice') ?? '').split('=')
    const tampered = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`
    expect((await page('/', undefined, { cookie: tampered })).status).toBe(401)
    expect((await page('/keys', undefined, { cookie: `${name}=garbage` })).status).toBe(401)
  })

  it('sign-in only returns to paths of this site', async () => {
    for (const target of ['https://evil.example/', '//evil.example/', '/\\evil.example']) {
      const response = await fetch(`${app.url}/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { origin: app.url, 'content-type': 'application/x-www-form-urlencoded' },
        body: `username=alice&password=${encodeURIComponent(app.password('alice'))}&return_to=${encodeURIComponent(target)}`,
      })
      expect(response.headers.get('location')).toBe('/')
    }
  })

  it('security events are the viewer’s own, in words; nobody sees the site’s refusals', async () => {
    const own = (text: string) => text.slice(text.indexOf('data-testid="events"'), text.indexOf('</ol>'))
    const keyIds = (text: string) =>
      [...own(text).matchAll(/<code>keyId<\/code>: <code>([^<]+)</g)].map((m) => m[1])
    const alice = await (await page('/events', 'alice')).text()
    expect(own(alice)).toContain('You made a new API key.')
    expect(own(alice)).toContain('A new session started')
    // The raw event names are there for developers only, in a details element.
    expect(own(alice)).toMatch(/<details class="developer">[\s\S]*<code>api_key\.issued<\/code>/)
    const bob = await (await page('/events', 'bob')).text()
    expect(own(bob)).toContain('You signed in with your password.')
    // Each sees their own keys' events only.
    const bobs = keyIds(bob)
    expect(bobs.length).toBeGreaterThan(0)
    for (const keyId of bobs) expect(alice).not.toContain(keyId)
    for (const keyId of keyIds(alice)) expect(bob).not.toContain(keyId)
    // The cross-site posts refused above carried Alice's session: they are on her page, in her name, and
    // on nobody else's.
    expect(own(alice)).toContain('A form sent to this app from another site, in your name, was refused.')
    expect(own(bob)).not.toContain('csrf.refused')
    for (const text of [alice, bob]) expect(text).not.toContain('data-testid="refusals"')
  })

  it('unknown paths are 404, as a page or as problem+json', async () => {
    expect((await page('/nowhere')).status).toBe(404)
    expect((await fetch(`${app.url}/api/nowhere`)).headers.get('content-type')).toMatch(/problem\+json/)
  })
})
