// Malformed input, indistinguishable failures, rate limits and client addresses over real HTTP.
import { inspect } from 'node:util'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { localApp, PASSWORD, SAME_ORIGIN } from './fixture.js'

const credentials = { username: 'alice', password: PASSWORD }

describe('bad input gives 400 and writes nothing', () => {
  it.each([
    [
      'invalid JSON',
      (r: request.Test) => r.set('content-type', 'application/json').send('{"username": "alice",'),
      'request.invalid_json',
    ],
    [
      'a number for the username',
      (r: request.Test) => r.send({ username: 42, password: PASSWORD }),
      'local.invalid_request',
    ],
    [
      'an unknown member',
      (r: request.Test) => r.send({ ...credentials, role: 'admin' }),
      'local.invalid_request',
    ],
    ['a JSON array', (r: request.Test) => r.send([credentials]), 'local.invalid_request'],
    [
      'a zero-width space in the username',
      (r: request.Test) => r.send({ username: 'ali\u200bce', password: PASSWORD }),
      'local.invalid_username',
    ],
    [
      'a right-to-left override in the username',
      (r: request.Test) => r.send({ username: 'ali\u202ece', password: PASSWORD }),
      'local.invalid_username',
    ],
    [
      'an empty username after trimming',
      (r: request.Test) => r.send({ username: '   ', password: PASSWORD }),
      'local.invalid_username',
    ],
    [
      'a repeated form field',
      (r: request.Test) => r.type('form').send('username=a&username=b&password=x'),
      'request.invalid_body',
    ],
    [
      'a password too short to register',
      (r: request.Test) => r.send({ username: 'alice', password: 'short' }),
      'local.invalid_password',
    ],
  ])('%s', async (_name, send, code) => {
    const { app, accounts, rateLimits } = await localApp('hybrid')
    const answer = await send(request(app).post('/auth/register').set(SAME_ORIGIN)).expect(400)
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(answer.headers['cache-control']).toBe('no-store')
    expect(answer.body).toMatchObject({ status: 400, code })
    expect(typeof answer.body.detail).toBe('string')
    expect(await accounts.findPassword({ username: 'alice' })).toBeNull()
    if (code !== 'local.invalid_password') {
      await send(request(app).post('/auth/token')).expect(400)
      await send(request(app).post('/auth/login').set(SAME_ORIGIN)).expect(400)
    }
    expect(inspect(rateLimits)).toContain('keys: 0')
  })

  it('refuses other media types with 415', async () => {
    const { app } = await localApp('tokens')
    const answer = await request(app)
      .post('/auth/token')
      .set('content-type', 'text/plain')
      .send('alice:pw')
      .expect(415)
    expect(answer.body.code).toBe('request.unsupported_media_type')
  })

  it('folds unicode forms of a username to one account', async () => {
    const { app } = await localApp('tokens')
    await request(app).post('/auth/register').send({ username: 'Ａｌｉｃｅ', password: PASSWORD }).expect(201)
    const taken = await request(app)
      .post('/auth/register')
      .send({ username: 'alice', password: PASSWORD })
      .expect(409)
    expect(taken.body.code).toBe('local.username_taken')
    await request(app).post('/auth/token').send({ username: ' ALICE ', password: PASSWORD }).expect(200)
  })
})

describe('failures that must look alike', () => {
  it('an unknown account answers exactly like a wrong password', async () => {
    const { app } = await localApp('tokens')
    await request(app).post('/auth/register').send(credentials).expect(201)
    const wrong = await request(app)
      .post('/auth/token')
      .send({ username: 'alice', password: 'not the password' })
      .expect(401)
    const unknown = await request(app)
      .post('/auth/token')
      .send({ username: 'nobody', password: 'not the password' })
      .expect(401)
    expect(unknown.text).toBe(wrong.text)
    expect(unknown.headers['content-type']).toBe(wrong.headers['content-type'])
    expect(wrong.body).toEqual({
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      code: 'local.invalid_credentials',
      detail: 'Authentication required',
    })
  })
})

describe('rate limits', () => {
  it('answers 429 with Retry-After once an account is over its limit', async () => {
    const { app } = await localApp('tokens', { rateLimit: { perAccount: { limit: 3, windowSeconds: 120 } } })
    await request(app).post('/auth/register').send(credentials).expect(201)
    for (let i = 0; i < 3; i += 1)
      await request(app)
        .post('/auth/token')
        .send({ ...credentials, password: 'wrong password' })
        .expect(401)
    const limited = await request(app).post('/auth/token').send(credentials).expect(429)
    expect(limited.headers['retry-after']).toBe('120')
    expect(limited.body.code).toBe('local.rate_limited')
  })

  it('behind a trusted proxy, counts the rightmost untrusted hop; a spoofed leftmost entry changes nothing', async () => {
    const { app, events } = await localApp('tokens', {
      trustedProxies: ['127.0.0.1', '::1', '10.0.0.0/8'],
      rateLimit: { perAddress: { limit: 2, windowSeconds: 60 } },
    })
    const attempt = (forwardedFor: string) =>
      request(app)
        .post('/auth/token')
        .set('x-forwarded-for', forwardedFor)
        .send({ username: `u${Math.random()}`, password: 'wrong password' })
    await attempt('198.51.100.1, 203.0.113.9').expect(401)
    await attempt('192.0.2.77, 203.0.113.9, 10.1.2.3').expect(401)
    await attempt('1.1.1.1, 203.0.113.9').expect(429)
    await attempt('203.0.113.10').expect(401)
    const failed = events.filter((event) => event.type === 'login.failed')
    expect(failed.map((event) => 'clientAddress' in event && event.clientAddress)).toEqual([
      '203.0.113.9',
      '203.0.113.9',
      '203.0.113.10',
    ])
  })

  it('without trusted proxies, X-Forwarded-For is ignored: the direct peer is counted', async () => {
    const { app } = await localApp('tokens', { rateLimit: { perAddress: { limit: 2, windowSeconds: 60 } } })
    const attempt = (forwardedFor: string) =>
      request(app)
        .post('/auth/token')
        .set('x-forwarded-for', forwardedFor)
        .send({ username: `u${Math.random()}`, password: 'wrong password' })
    await attempt('203.0.113.1').expect(401)
    await attempt('203.0.113.2').expect(401)
    await attempt('203.0.113.3').expect(429)
  })
})
