// The app with the demo IdP turned off and no identity provider configured (PORTCULLIS_DEMO_IDP=false):
// it starts, local accounts work, and the OAuth routes are simply absent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/reference-app.js'

let app: TestApp
beforeAll(async () => {
  app = await startTestApp({ demoIdp: { enabled: false, port: 0 }, providers: [] })
})
afterAll(async () => {
  await app?.close()
})

describe('the reference app without any identity provider', () => {
  it('starts, signs in with a password, and has no OAuth routes', async () => {
    expect(app.running.idpUrl).toBeUndefined()
    const home = await fetch(`${app.url}/`)
    expect(home.status).toBe(200)
    const signIn = await fetch(`${app.url}/sign-in`)
    expect(signIn.status).toBe(200)
    const page = await signIn.text()
    expect(page).not.toContain('/auth/oauth/')

    const login = await fetch(`${app.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: app.url, 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ username: 'alice', password: app.password('alice') }),
    })
    expect(login.status).toBe(200)

    const begin = await fetch(`${app.url}/auth/oauth/demo/login`, { redirect: 'manual' })
    expect(begin.status).toBe(404)
    const openapi = (await (await fetch(`${app.url}/openapi.json`)).json()) as { paths: object }
    expect(Object.keys(openapi.paths)).toContain('/auth/login')
    expect(Object.keys(openapi.paths).filter((path) => path.includes('/oauth/'))).toEqual([])
  })
})
