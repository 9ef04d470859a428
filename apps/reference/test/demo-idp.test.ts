import { createHash, randomBytes } from 'node:crypto'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEMO_IDP_CALLBACK_PATH,
  DEMO_IDP_CLIENT_ID,
  DEMO_IDP_MAX_FORM_BYTES,
  type DemoIdp,
  startDemoIdp,
} from '../src/demo-idp/demo-idp.js'
import { generateSecrets } from '../src/secrets/generate.js'
import type { ReferenceSecrets } from '../src/secrets/secrets.js'
import { Jar, step } from './support/cookie-jar.js'

/**
 * The demo OpenID Provider on its own: a confidential client runs the authorization code flow (PKCE) with
 * `max_age=0` and `acr_values`, the login page is filled in like a person would (who, how long ago, which
 * ACR and AMR), and the signed ID token must say exactly that.
 */
const APP = 'http://127.0.0.1:4999'
let idp: DemoIdp
let secrets: ReferenceSecrets

beforeAll(async () => {
  secrets = await generateSecrets()
  idp = await startDemoIdp({ host: '127.0.0.1', port: 0, secrets: secrets.demoIdp, appOrigins: [APP] })
})
afterAll(async () => {
  await idp?.close()
})

/** Starts an authorization request and follows it to the login page; returns its URL and HTML. */
async function openLoginPage(jar: Jar, verifier: string, extra: Record<string, string>) {
  const authorize = new URL(`${idp.issuer}/auth`)
  authorize.search = new URLSearchParams({
    client_id: DEMO_IDP_CLIENT_ID,
    response_type: 'code',
    scope: 'openid profile email',
    redirect_uri: `${APP}${DEMO_IDP_CALLBACK_PATH}`,
    state: randomBytes(16).toString('base64url'),
    nonce: randomBytes(16).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...extra,
  }).toString()
  const redirect = await step(jar, authorize.toString())
  expect(redirect.status).toBe(303)
  const page = new URL(redirect.headers.get('location') ?? '', idp.issuer).toString()
  const response = await step(jar, page)
  expect(response.status).toBe(200)
  return { page, html: await response.text() }
}

/** Follows redirects from the login submission to the app's callback and returns the code. */
async function codeAfter(jar: Jar, response: Response): Promise<string> {
  let current = response
  for (let hop = 0; hop < 5; hop += 1) {
    const location = current.headers.get('location')
    expect(location).not.toBeNull()
    const next = new URL(location ?? '', idp.issuer)
    if (next.href.startsWith(`${APP}${DEMO_IDP_CALLBACK_PATH}`)) return next.searchParams.get('code') ?? ''
    current = await step(jar, next.toString())
  }
  throw new Error('no callback')
}

/** The app's side of the code exchange (client_secret_basic, PKCE), returning the verified ID token claims. */
async function exchange(code: string, verifier: string) {
  const token = await fetch(`${idp.issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${DEMO_IDP_CLIENT_ID}:${secrets.demoIdp.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${APP}${DEMO_IDP_CALLBACK_PATH}`,
      code_verifier: verifier,
    }),
  })
  expect(token.status).toBe(200)
  const { id_token: idToken } = (await token.json()) as { id_token: string }
  const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(`${idp.issuer}/jwks`)), {
    issuer: idp.issuer,
    audience: DEMO_IDP_CLIENT_ID,
  })
  return payload
}

describe('the demo IdP login page', () => {
  it('shows what the application asked for, and issues the auth_time, ACR and AMR chosen there', async () => {
    const jar = new Jar()
    const verifier = randomBytes(32).toString('base64url')
    const { page, html } = await openLoginPage(jar, verifier, {
      max_age: '0',
      acr_values: 'urn:portcullis:demo:acr:mfa',
    })
    expect(html).toContain('<form method="post"')
    expect(html).toContain('urn:portcullis:demo:acr:mfa')
    expect(html).toMatch(/<dt>prompt<\/dt><dd><code>login<\/code>/)
    for (const user of ['alice', 'bob', 'carol']) expect(html).toContain(`value="${user}"`)

    const submitted = await step(jar, page, {
      method: 'POST',
      headers: { origin: idp.issuer, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=carol&auth_age=900&acr=urn%3Aportcullis%3Ademo%3Aacr%3Amfa&amr=pwd&amr=hwk',
    })
    expect(submitted.status).toBe(303)
    const code = await codeAfter(jar, submitted)

    const payload = await exchange(code, verifier)
    expect(payload.sub).toBe('carol')
    expect(payload.acr).toBe('urn:portcullis:demo:acr:mfa')
    expect(payload.amr).toEqual(['pwd', 'hwk'])
    const expected = Math.floor(Date.now() / 1000) - 900
    expect(Math.abs((payload.auth_time as number) - expected)).toBeLessThanOrEqual(5)
  })

  it('with no ACR and "now" chosen, auth_time is now and no acr is claimed', async () => {
    const jar = new Jar()
    const verifier = randomBytes(32).toString('base64url')
    const { page } = await openLoginPage(jar, verifier, { prompt: 'login' })
    const submitted = await step(jar, page, {
      method: 'POST',
      headers: { origin: idp.issuer, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&auth_age=0&acr=&amr=pwd',
    })
    const payload = await exchange(await codeAfter(jar, submitted), verifier)
    expect(payload.sub).toBe('alice')
    expect(payload.acr).toBeUndefined()
    expect(payload.amr).toEqual(['pwd'])
    expect(Math.abs((payload.auth_time as number) - Math.floor(Date.now() / 1000))).toBeLessThanOrEqual(5)
  })

  it('refuses a cross-site submission of the login form, and choices it did not offer', async () => {
    const jar = new Jar()
    const { page } = await openLoginPage(jar, randomBytes(32).toString('base64url'), {})
    const crossSite = await step(jar, page, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&auth_age=0&amr=pwd',
    })
    expect(crossSite.status).toBe(403)
    const invented = await step(jar, page, {
      method: 'POST',
      headers: { origin: idp.issuer, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=mallory&auth_age=0&amr=pwd',
    })
    expect(invented.status).toBe(400)
    const oddAcr = await step(jar, page, {
      method: 'POST',
      headers: { origin: idp.issuer, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&auth_age=0&acr=urn%3Aother&amr=pwd',
    })
    expect(oddAcr.status).toBe(400)
  })

  it('refuses a login form over 4 KiB with 413 problem+json, and accepts one of exactly 4 KiB', async () => {
    const jar = new Jar()
    const verifier = randomBytes(32).toString('base64url')
    const { page } = await openLoginPage(jar, verifier, {})
    const form = (bytes: number) => 'username=alice&auth_age=0&amr=pwd&pad='.padEnd(bytes, 'x')
    const submit = (body: string) =>
      step(jar, page, {
        method: 'POST',
        headers: { origin: idp.issuer, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      })
    const tooLarge = await submit(form(DEMO_IDP_MAX_FORM_BYTES + 1))
    expect(tooLarge.status).toBe(413)
    expect(tooLarge.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(await tooLarge.json()).toMatchObject({ status: 413, code: 'request.body_too_large' })
    // the interaction is still open: the same page takes a form of exactly the limit
    const accepted = await submit(form(DEMO_IDP_MAX_FORM_BYTES))
    expect(accepted.status).toBe(303)
    expect((await exchange(await codeAfter(jar, accepted), verifier)).sub).toBe('alice')
  })
})
