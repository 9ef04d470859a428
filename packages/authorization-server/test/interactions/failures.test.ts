import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stepUpReauthentication } from '../../src/index.js'
import { startApp, type TestApp } from './support/app.js'
import { Browser } from './support/browser.js'

describe('interaction failures', () => {
  let app: TestApp
  const failures: unknown[] = []
  beforeAll(async () => {
    app = await startApp('express', {
      reauthentication: stepUpReauthentication({
        service: { consume: async () => ({ kind: 'unavailable', reason: 'store down' }) },
        url: (returnTo) => `/reauthenticate?return_to=${encodeURIComponent(returnTo)}`,
        tokenOf: () => 'a'.repeat(43),
        session: async () => ({ accountId: 'alice', securityEpoch: 1, sessionHandle: 'h' }),
      }),
      onError: (error) => failures.push(error),
    })
  })
  afterAll(() => app.close())

  it('answers 503 when the step-up store is unavailable, without detail', async () => {
    const browser = new Browser(app.origin)
    app.signIn(browser, 'alice')
    const { response, location } = await browser.follow(app.authorize({ prompt: 'login' }).url)
    expect(location).toBeUndefined()
    expect(response.status).toBe(503)
    const text = await response.text()
    expect(text).toContain('Temporarily unavailable')
    expect(text).not.toContain('store down')
    expect(failures).toEqual([])
  })

  it('answers 405 to other methods, and 404 outside the interaction paths', async () => {
    const browser = new Browser(app.origin)
    const put = await browser.request('/oauth/interaction/abc', { method: 'PUT' })
    expect(put.status).toBe(405)
    expect(put.headers.get('allow')).toBe('GET, POST')
    const nested = await browser.request('/oauth/interaction/abc/extra', {
      headers: { accept: 'application/json' },
    })
    expect(nested.status).toBe(404)
    expect(await nested.json()).toMatchObject({ code: 'authorization_server.interaction_not_found' })
  })
})

describe('an unexpected failure', () => {
  let app: TestApp
  const failures: unknown[] = []
  const secret = 'connection string postgres://user:hunter2@db'
  beforeAll(async () => {
    app = await startApp('express', {
      currentUser: async () => {
        throw new Error(secret)
      },
      onError: (error) => failures.push(error),
    })
  })
  afterAll(() => app.close())

  it('is answered 500 without its message or stack, and reported to onError', async () => {
    const browser = new Browser(app.origin)
    const { response } = await browser.follow(app.authorize().url)
    expect(response.status).toBe(500)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const text = await response.text()
    expect(text).not.toContain('hunter2')
    expect(text).not.toMatch(/\.ts:\d+/)
    expect(failures).toHaveLength(1)
    expect((failures[0] as Error).message).toBe(secret)
  })
})
