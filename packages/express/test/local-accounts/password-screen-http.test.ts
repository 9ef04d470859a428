// Password screening over real HTTP: a refused new password is 400 `local.password_screened` with a
// client-safe detail that never carries it; a range screen that fails closed answers 503
// `local.password_screen_unavailable` with Retry-After while its service is down, and writes nothing.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { rangePasswordScreen } from '@portcullis/core/local-accounts'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { localApp, PASSWORD, SAME_ORIGIN } from './fixture.js'

describe('password screening over HTTP', () => {
  it('refuses a common password at sign-up with 400, never echoing it, and creates nothing', async () => {
    const { app, accounts } = await localApp('session')
    const refused = await request(app)
      .post('/auth/register')
      .set(SAME_ORIGIN)
      .send({ username: 'alice', password: 'Trustno1' })
      .expect(400)
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(refused.body).toMatchObject({ status: 400, code: 'local.password_screened' })
    expect(typeof refused.body.detail).toBe('string')
    expect(refused.text.toLowerCase()).not.toContain('trustno1')
    expect(await accounts.findPassword({ username: 'alice' })).toBeNull()
    await request(app)
      .post('/auth/register')
      .set(SAME_ORIGIN)
      .send({ username: 'alice', password: PASSWORD })
      .expect(201)
  })

  it('fails closed with 503 and Retry-After while the range service is down, when configured to', async () => {
    // A server that answers 503 to every range request: the service is there but unavailable.
    const seen: string[] = []
    const server = createServer((incoming, response) => {
      seen.push(incoming.url ?? '')
      response.writeHead(503).end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/range/`
      const { app, accounts } = await localApp('session', {
        passwordScreen: rangePasswordScreen({
          endpoint,
          allowLoopback: true,
          whenUnavailable: 'refuse',
          retryAfterSeconds: 9,
          fallback: commonPasswordScreen(),
        }),
      })
      const answer = await request(app)
        .post('/auth/register')
        .set(SAME_ORIGIN)
        .send({ username: 'alice', password: PASSWORD })
        .expect(503)
      expect(answer.headers['retry-after']).toBe('9')
      expect(answer.body).toMatchObject({ status: 503, code: 'local.password_screen_unavailable' })
      expect(answer.text).not.toContain(PASSWORD)
      expect(seen).toHaveLength(1)
      expect(seen[0]).toMatch(/^\/range\/[0-9A-F]{5}$/)
      expect(await accounts.findPassword({ username: 'alice' })).toBeNull()
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
