// The session profile over real HTTP (Express + supertest), memory stores.
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { cookiesOf, localApp, ORIGIN, PASSWORD, SAME_ORIGIN, SESSION_COOKIE } from './fixture.js'

const credentials = { username: 'alice', password: PASSWORD }

async function signedIn(profile: 'session' | 'hybrid' = 'session') {
  const fixture = await localApp(profile)
  await request(fixture.app).post('/auth/register').set(SAME_ORIGIN).send(credentials).expect(201)
  const login = await request(fixture.app).post('/auth/login').set(SAME_ORIGIN).send(credentials).expect(200)
  const cookie = cookiesOf(login).get(SESSION_COOKIE) as string
  return { ...fixture, cookie, csrfToken: login.body.csrfToken as string, login }
}

describe('session profile', () => {
  it('register, sign in, use, list and sign out', async () => {
    const { app, cookie, login } = await signedIn()
    const setCookie = String(login.headers['set-cookie'])
    expect(setCookie).toMatch(
      /^__Host-portcullis-session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    )
    expect(login.headers['cache-control']).toBe('no-store')
    expect(login.body).toEqual({
      accountId: expect.any(String),
      csrfToken: expect.any(String),
      expiresAt: expect.any(String),
    })
    const me = await request(app).get('/api/me').set('cookie', cookie).expect(200)
    expect(me.body.id).toBe(login.body.accountId)
    const listed = await request(app).get('/auth/sessions').set('cookie', cookie).expect(200)
    expect(listed.body.sessions).toEqual([expect.objectContaining({ current: true, id: expect.any(String) })])
    expect(JSON.stringify(listed.body)).not.toContain(cookie.split('=')[1])
    const logout = await request(app).post('/auth/logout').set('cookie', cookie).set(SAME_ORIGIN).expect(204)
    expect(cookiesOf(logout).get(SESSION_COOKIE)).toBe('')
    await request(app).get('/api/me').set('cookie', cookie).expect(401)
  })

  it('changes the session id at sign-in (no fixation)', async () => {
    const { app, cookie } = await signedIn()
    const again = await request(app)
      .post('/auth/login')
      .set('cookie', cookie)
      .set(SAME_ORIGIN)
      .send(credentials)
      .expect(200)
    const fresh = cookiesOf(again).get(SESSION_COOKIE) as string
    expect(fresh).not.toBe(cookie)
    await request(app).get('/api/me').set('cookie', cookie).expect(401)
    await request(app).get('/api/me').set('cookie', fresh).expect(200)
  })

  it('revokes another session by its id, and 404s an unknown one', async () => {
    const { app, cookie } = await signedIn()
    const other = await request(app).post('/auth/login').set(SAME_ORIGIN).send(credentials).expect(200)
    const otherCookie = cookiesOf(other).get(SESSION_COOKIE) as string
    const listed = await request(app).get('/auth/sessions').set('cookie', cookie).expect(200)
    const target = listed.body.sessions.find((session: { current: boolean }) => !session.current)
    await request(app)
      .delete(`/auth/sessions/${target.id}`)
      .set('cookie', cookie)
      .set(SAME_ORIGIN)
      .expect(204)
    await request(app).get('/api/me').set('cookie', otherCookie).expect(401)
    await request(app).get('/api/me').set('cookie', cookie).expect(200)
    const missing = await request(app)
      .delete(`/auth/sessions/${target.id}`)
      .set('cookie', cookie)
      .set(SAME_ORIGIN)
      .expect(404)
    expect(missing.body.code).toBe('local.session_not_found')
  })

  it('password change ends the other sessions and keeps the caller signed in with a new id', async () => {
    const { app, cookie } = await signedIn()
    const other = cookiesOf(await request(app).post('/auth/login').set(SAME_ORIGIN).send(credentials)).get(
      SESSION_COOKIE,
    ) as string
    const changed = await request(app)
      .post('/auth/password/change')
      .set('cookie', cookie)
      .set(SAME_ORIGIN)
      .send({ currentPassword: PASSWORD, newPassword: 'another long passphrase' })
      .expect(200)
    const fresh = cookiesOf(changed).get(SESSION_COOKIE) as string
    await request(app).get('/api/me').set('cookie', cookie).expect(401)
    await request(app).get('/api/me').set('cookie', other).expect(401)
    await request(app).get('/api/me').set('cookie', fresh).expect(200)
    await request(app).post('/auth/login').set(SAME_ORIGIN).send(credentials).expect(401)
  })
})

describe('CSRF', () => {
  it.each([
    ['cross-site Fetch Metadata', { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }],
    [
      'same-site Fetch Metadata from a sibling',
      { 'sec-fetch-site': 'same-site', origin: 'https://evil.app.example' },
    ],
    ['a foreign Origin', { origin: 'https://evil.example' }],
    ['the opaque null Origin', { origin: 'null' }],
    ['neither header and no token', {}],
    ['a wrong token', { 'x-csrf-token': 'A'.repeat(43) }],
  ])('refuses %s with 403 local.csrf_refused', async (_name, headers) => {
    const { app, cookie, events } = await signedIn()
    const refused = await request(app).post('/api/me').set('cookie', cookie).set(headers).expect(403)
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(refused.body).toMatchObject({ status: 403, code: 'local.csrf_refused' })
    expect(events.at(-1)).toMatchObject({ type: 'csrf.refused', method: 'POST' })
    // Logout is refused the same way: the session survives.
    await request(app).post('/auth/logout').set('cookie', cookie).set(headers).expect(403)
    await request(app).get('/api/me').set('cookie', cookie).expect(200)
  })

  it.each([
    ['same-origin Fetch Metadata', SAME_ORIGIN],
    ['the own Origin without Fetch Metadata', { origin: ORIGIN }],
  ])('accepts %s', async (_name, headers) => {
    const { app, cookie } = await signedIn()
    await request(app).post('/api/me').set('cookie', cookie).set(headers).expect(200)
  })

  it('accepts the synchronizer token from clients that send neither header', async () => {
    const { app, cookie, csrfToken } = await signedIn()
    await request(app).post('/api/me').set('cookie', cookie).set('x-csrf-token', csrfToken).expect(200)
    const fetched = await request(app).get('/auth/csrf').set('cookie', cookie).expect(200)
    expect(fetched.body.csrfToken).toBe(csrfToken)
  })

  it('sign-in is CSRF-checked too; a pre-session seed gives header-less clients a token', async () => {
    const { app } = await localApp('session')
    await request(app).post('/auth/register').send(credentials).expect(201)
    await request(app)
      .post('/auth/login')
      .set({ 'sec-fetch-site': 'cross-site' })
      .send(credentials)
      .expect(403)
    await request(app).post('/auth/login').send(credentials).expect(403)
    const seeded = await request(app).get('/auth/csrf').expect(200)
    const seed = cookiesOf(seeded).get('__Host-portcullis-csrf') as string
    expect(String(seeded.headers['set-cookie'])).toMatch(/HttpOnly; Secure; SameSite=Lax; Max-Age=7200$/)
    await request(app)
      .post('/auth/login')
      .set('cookie', seed)
      .set('x-csrf-token', seeded.body.csrfToken)
      .send(credentials)
      .expect(200)
  })

  it('leaves safe methods and bearer requests alone', async () => {
    const { app, cookie } = await signedIn()
    await request(app)
      .get('/api/me')
      .set('cookie', cookie)
      .set({ 'sec-fetch-site': 'cross-site' })
      .expect(200)
  })
})
