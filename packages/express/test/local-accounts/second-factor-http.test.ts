// Password sign-in of an account with TOTP over real HTTP: 202 with a pending token, then the
// second-factor route of the transport (Express + supertest, memory stores).
import { randomBytes } from 'node:crypto'
import type { SecondFactorGate } from '@portcullis/core/local-accounts'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { MemoryStepUpStore } from '@portcullis/core/step-up'
import { MemoryTotpStore, TotpSecondFactor } from '@portcullis/core/totp'
import { TotpService, totpCodeAt } from '@portcullis/totp'
import { Secret } from 'otpauth'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { cookiesOf, localApp, PASSWORD, SAME_ORIGIN, SESSION_COOKIE } from './fixture.js'

const credentials = { username: 'alice', password: PASSWORD }

async function twoStepApp() {
  // The gate needs the app's rate-limit store, which the fixture makes: it forwards to `second`.
  const gate: SecondFactorGate = {
    begin: (start) => second.begin(start),
    complete: (body, context) => second.complete(body, context),
  }
  const fixture = await localApp('hybrid', { secondFactor: gate })
  const totp = new TotpService({
    store: new MemoryTotpStore(),
    protector: new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
    }),
    rateLimits: fixture.rateLimits,
    recoveryCodePeppers: { active: { version: 'p1', secret: randomBytes(32) } },
    issuer: 'Portcullis',
  })
  const second = new TotpSecondFactor({ totp, pending: new MemoryStepUpStore() })
  const { accountId } = (await request(fixture.app).post('/auth/register').send(credentials).expect(201)).body
  const start = await totp.beginEnrollment({ accountId, label: 'alice' })
  const secret = Secret.fromBase32(start.revealSecret()).bytes
  // Enrolled with the previous step's code, so the current one is still unused.
  await totp.confirmEnrollment({ accountId, code: totpCodeAt(secret, Date.now() - 30_000) })
  return { ...fixture, accountId, code: () => totpCodeAt(secret, Date.now()) }
}

describe('password sign-in with a second factor', () => {
  it('answers 202 with a pending token and no cookie, then signs in with the code', async () => {
    const { app, code } = await twoStepApp()
    const first = await request(app).post('/auth/login').set(SAME_ORIGIN).send(credentials).expect(202)
    expect(first.headers['cache-control']).toBe('no-store')
    expect(first.headers['set-cookie']).toBeUndefined()
    expect(first.body).toEqual({
      secondFactorRequired: true,
      pendingToken: expect.stringMatching(/^[\w-]{43}$/),
      methods: ['totp', 'recovery_code'],
      expiresAt: expect.any(String),
    })
    const wrong = await request(app)
      .post('/auth/login/second-factor')
      .set(SAME_ORIGIN)
      .send({ pendingToken: first.body.pendingToken, code: '000000' })
      .expect(401)
    expect(wrong.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(wrong.body.code).toBe('totp.invalid_code')
    const done = await request(app)
      .post('/auth/login/second-factor')
      .set(SAME_ORIGIN)
      .send({ pendingToken: first.body.pendingToken, code: code() })
      .expect(200)
    const cookie = cookiesOf(done).get(SESSION_COOKIE) ?? ''
    expect(cookie).not.toBe('')
    await request(app).get('/api/me').set('cookie', cookie).expect(200)
  })

  it('finishes a token sign-in on the token route, and refuses a pending token of the other transport', async () => {
    const { app, code } = await twoStepApp()
    const first = await request(app).post('/auth/token').send(credentials).expect(202)
    const crossed = await request(app)
      .post('/auth/login/second-factor')
      .set(SAME_ORIGIN)
      .send({ pendingToken: first.body.pendingToken, code: code() })
      .expect(401)
    expect(crossed.body.code).toBe('totp.pending_invalid')
    const again = await request(app).post('/auth/token').send(credentials).expect(202)
    const pair = await request(app)
      .post('/auth/token/second-factor')
      .type('form')
      .send({ pendingToken: again.body.pendingToken, code: code() })
      .expect(200)
    await request(app).get('/api/me').auth(pair.body.access_token, { type: 'bearer' }).expect(200)
  })

  it('refuses a cross-site second step like a cross-site sign-in', async () => {
    const { app, code } = await twoStepApp()
    const first = await request(app).post('/auth/login').set(SAME_ORIGIN).send(credentials).expect(202)
    const refused = await request(app)
      .post('/auth/login/second-factor')
      .set({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })
      .send({ pendingToken: first.body.pendingToken, code: code() })
      .expect(403)
    expect(refused.body.code).toBe('local.csrf_refused')
  })

  it('answers 429 with Retry-After once the attempts are used up', async () => {
    const { app } = await twoStepApp()
    const first = await request(app).post('/auth/token').send(credentials).expect(202)
    const send = () =>
      request(app)
        .post('/auth/token/second-factor')
        .send({ pendingToken: first.body.pendingToken, code: '000000' })
    for (let attempt = 0; attempt < 5; attempt += 1) await send().expect(401)
    const limited = await send().expect(429)
    expect(limited.body.code).toBe('totp.rate_limited')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('refuses a malformed second step with 400 before reading any store', async () => {
    const { app } = await twoStepApp()
    const refused = await request(app)
      .post('/auth/token/second-factor')
      .send({ pendingToken: 'x', code: '123456', recoveryCode: 'abcd-efgh-jkmn' })
      .expect(400)
    expect(refused.body.code).toBe('local.invalid_request')
  })
})
