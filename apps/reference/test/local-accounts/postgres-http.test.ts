// Local accounts over HTTP on the real Postgres server, with two app instances sharing one database
// (each has its own pool, stores and caches, as two processes behind a load balancer).
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Instance,
  instance,
  movableClock,
  PASSWORD,
  SAME_ORIGIN,
  type SharedDatabase,
  sessionCookieOf,
  sharedDatabase,
} from './support.js'

let shared: SharedDatabase
beforeAll(async () => {
  shared = await sharedDatabase()
})
afterAll(async () => {
  await shared?.close()
})

let counter = 0
function fresh() {
  counter += 1
  return { username: `user${counter}-${Date.now().toString(36)}`, password: PASSWORD }
}

async function register(app: Instance['app'], credentials: { username: string; password: string }) {
  await request(app).post('/auth/register').set(SAME_ORIGIN).send(credentials).expect(201)
}

describe('session profile on Postgres', () => {
  it('signs in on one instance and is recognised on the other; the id changes at every sign-in', async () => {
    const [a, b] = [instance(shared, 'session'), instance(shared, 'session')]
    const credentials = fresh()
    await register(a.app, credentials)
    const first = sessionCookieOf(
      await request(a.app).post('/auth/login').set(SAME_ORIGIN).send(credentials).expect(200),
    )
    await request(b.app).get('/api/me').set('cookie', first).expect(200)
    const second = sessionCookieOf(
      await request(b.app)
        .post('/auth/login')
        .set('cookie', first)
        .set(SAME_ORIGIN)
        .send(credentials)
        .expect(200),
    )
    expect(second).not.toBe(first)
    await request(b.app).get('/api/me').set('cookie', second).expect(200)
    await request(b.app).get('/api/me').set('cookie', first).expect(401)
  })

  it('a sign-out on one instance holds on the other within the staleness bound (strict mode: at once)', async () => {
    const clock = movableClock()
    const a = instance(shared, 'session', { clock })
    const cached = instance(shared, 'session', { clock })
    const strict = instance(shared, 'session', { clock, revocation: { maxStalenessSeconds: 0 } })
    const credentials = fresh()
    await register(a.app, credentials)
    const cookie = sessionCookieOf(
      await request(a.app).post('/auth/login').set(SAME_ORIGIN).send(credentials).expect(200),
    )
    await request(cached.app).get('/api/me').set('cookie', cookie).expect(200)
    await request(strict.app).get('/api/me').set('cookie', cookie).expect(200)
    await request(a.app).post('/auth/logout').set('cookie', cookie).set(SAME_ORIGIN).expect(204)
    await request(a.app).get('/api/me').set('cookie', cookie).expect(401)
    await request(strict.app).get('/api/me').set('cookie', cookie).expect(401)
    await request(cached.app).get('/api/me').set('cookie', cookie).expect(200) // still inside its 5 s
    clock.advance(5_000)
    await request(cached.app).get('/api/me').set('cookie', cookie).expect(401)
  })
})

describe('password change on Postgres', () => {
  it('ends sessions, refresh families and access tokens on every instance', async () => {
    const clock = movableClock()
    const [a, b] = [instance(shared, 'hybrid', { clock }), instance(shared, 'hybrid', { clock })]
    const credentials = fresh()
    await register(a.app, credentials)
    const cookie = sessionCookieOf(
      await request(a.app).post('/auth/login').set(SAME_ORIGIN).send(credentials).expect(200),
    )
    const other = sessionCookieOf(
      await request(b.app).post('/auth/login').set(SAME_ORIGIN).send(credentials).expect(200),
    )
    const pair = (await request(b.app).post('/auth/token').send(credentials).expect(200)).body
    await request(b.app).get('/api/me').set('cookie', other).expect(200)
    await request(b.app).get('/api/me').auth(pair.access_token, { type: 'bearer' }).expect(200)

    await request(a.app)
      .post('/auth/password/change')
      .set('cookie', cookie)
      .set(SAME_ORIGIN)
      .send({ currentPassword: PASSWORD, newPassword: 'a completely new passphrase' })
      .expect(200)

    // Refresh families are ended in the store at once, on every instance.
    await request(b.app).post('/auth/token/refresh').send({ refresh_token: pair.refresh_token }).expect(401)
    // Sessions and access tokens: within the documented bound (5 s by default) on the other instance.
    clock.advance(5_000)
    await request(b.app).get('/api/me').set('cookie', other).expect(401)
    await request(b.app).get('/api/me').set('cookie', cookie).expect(401)
    await request(b.app).get('/api/me').auth(pair.access_token, { type: 'bearer' }).expect(401)
    await request(b.app).post('/auth/token').send(credentials).expect(401)
    await request(b.app)
      .post('/auth/token')
      .send({ ...credentials, password: 'a completely new passphrase' })
      .expect(200)
  })
})

describe('refresh tokens on Postgres', () => {
  it('concurrent refreshes of one token across two instances have exactly one winner', async () => {
    const [a, b] = [instance(shared, 'tokens'), instance(shared, 'tokens')]
    const credentials = fresh()
    await register(a.app, credentials)
    const pair = (await request(a.app).post('/auth/token').send(credentials).expect(200)).body
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        request((index % 2 === 0 ? a : b).app)
          .post('/auth/token/refresh')
          .send({ refresh_token: pair.refresh_token }),
      ),
    )
    const winners = answers.filter((answer) => answer.status === 200)
    expect(winners).toHaveLength(1)
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(15)
    // The losers presented a used token: the family is revoked, the winner's new token included.
    const winner = winners[0]?.body
    await request(a.app).post('/auth/token/refresh').send({ refresh_token: winner.refresh_token }).expect(401)
    expect([...a.events, ...b.events].some((event) => event.type === 'refresh.reuse_detected')).toBe(true)
  })

  it('a replayed refresh token revokes its family on the other instance too', async () => {
    const [a, b] = [instance(shared, 'tokens'), instance(shared, 'tokens')]
    const credentials = fresh()
    await register(a.app, credentials)
    const first = (await request(a.app).post('/auth/token').send(credentials).expect(200)).body
    const second = (
      await request(a.app)
        .post('/auth/token/refresh')
        .send({ refresh_token: first.refresh_token })
        .expect(200)
    ).body
    await request(b.app).post('/auth/token/refresh').send({ refresh_token: first.refresh_token }).expect(401)
    await request(a.app).post('/auth/token/refresh').send({ refresh_token: second.refresh_token }).expect(401)
    expect(b.events.some((event) => event.type === 'refresh.reuse_detected')).toBe(true)
  })
})

describe('login rate limits on Postgres', () => {
  it('hold across two instances sharing the database', async () => {
    const limits = { rateLimit: { perAccount: { limit: 4, windowSeconds: 60 } } }
    const [a, b] = [instance(shared, 'tokens', limits), instance(shared, 'tokens', limits)]
    const credentials = fresh()
    await register(a.app, credentials)
    const wrong = { ...credentials, password: 'not the password' }
    await request(a.app).post('/auth/token').send(wrong).expect(401)
    await request(b.app).post('/auth/token').send(wrong).expect(401)
    await request(a.app).post('/auth/token').send(wrong).expect(401)
    await request(b.app).post('/auth/token').send(wrong).expect(401)
    const limited = await request(a.app).post('/auth/token').send(credentials).expect(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    await request(b.app).post('/auth/token').send(credentials).expect(429)
  })

  it('concurrent attempts on both instances are allowed exactly the limit', async () => {
    const limits = { rateLimit: { perAccount: { limit: 5, windowSeconds: 60 } } }
    const [a, b] = [instance(shared, 'tokens', limits), instance(shared, 'tokens', limits)]
    const credentials = fresh()
    await register(a.app, credentials)
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        request((index % 2 === 0 ? a : b).app)
          .post('/auth/token')
          .send({ ...credentials, password: 'not the password' }),
      ),
    )
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(5)
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(7)
  })
})

describe('bad input on Postgres', () => {
  it('a malformed username is a 400 that writes no account and no rate-limit row', async () => {
    const a = instance(shared, 'tokens')
    const client = shared.connect(1)
    const before = await client.pool.query('select count(*)::int as n from portcullis_rate_limits')
    await request(a.app)
      .post('/auth/token')
      .send({ username: 'bad\u0000name', password: PASSWORD })
      .expect(400)
    await request(a.app)
      .post('/auth/register')
      .send({ username: 'zero\u200dwidth', password: PASSWORD })
      .expect(400)
    const after = await client.pool.query('select count(*)::int as n from portcullis_rate_limits')
    expect(after.rows[0].n).toBe(before.rows[0].n)
    const accounts = await client.pool.query(
      "select count(*)::int as n from portcullis_passwords where username like 'zero%'",
    )
    expect(accounts.rows[0].n).toBe(0)
  })
})
