import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Jar, step } from './support/cookie-jar.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The demo IdP goes down between the browser's return and the app's code exchange (the callback): the
 * app answers 503, not 401, and does not burn the OAuth transaction, since the token request never left;
 * once the IdP is back the same callback completes the exchange and signs in (the demo IdP provisions
 * unknown identities, so the sign-in succeeds whether or not the identity was linked: reaching it proves
 * the transaction was still there).
 */
let app: TestApp
beforeAll(async () => {
  app = await startTestApp()
}, 120_000)
afterAll(async () => {
  await app?.close()
})

describe('the demo IdP down during a callback', () => {
  it('503 while it is down, and the same callback completes once it is back', async () => {
    const idp = app.running.demoIdp
    const issuer = app.running.idpUrl ?? ''
    expect(idp).toBeDefined()
    const appJar = new Jar()
    const idpJar = new Jar()
    const begun = await step(appJar, `${app.url}/auth/oauth/demo/login`)
    expect(begun.status).toBe(303)
    const authorize = await step(idpJar, begun.headers.get('location') ?? '')
    expect(authorize.status).toBe(303)
    const page = new URL(authorize.headers.get('location') ?? '', issuer).toString()
    expect((await step(idpJar, page)).status).toBe(200)
    let current = await step(idpJar, page, {
      method: 'POST',
      headers: { origin: issuer, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&auth_age=0&acr=urn%3Aportcullis%3Ademo%3Aacr%3Amfa&amr=pwd&amr=hwk',
    })
    let callback: string | undefined
    for (let hop = 0; hop < 6 && callback === undefined; hop += 1) {
      const next = new URL(current.headers.get('location') ?? '', issuer)
      if (next.href.startsWith(app.url)) callback = next.href
      else current = await step(idpJar, next.href)
    }
    expect(callback).toContain('/auth/oauth/demo/callback')

    await idp?.pause()
    let down: Response
    try {
      down = await step(appJar, callback ?? '', { headers: { accept: 'application/json' } })
    } finally {
      await idp?.resume()
    }
    expect(down.status).toBe(503)
    expect(((await down.json()) as { code?: string }).code).toBe('oidc.provider.unavailable')

    const again = await step(appJar, callback ?? '', { headers: { accept: 'application/json' } })
    expect(again.status).not.toBe(503)
    expect(again.status).not.toBe(401)
    expect(again.status).toBe(200)
    expect(((await again.json()) as { operation?: string }).operation).toBe('login')
  }, 60_000)
})
