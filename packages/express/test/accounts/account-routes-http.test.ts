// The account routes over HTTP (supertest on a real Express app): the password step-up and its limits,
// forged and malformed input, refusals as problem+json with stable codes, cookies and OpenAPI.
import { AccountService, MemoryAccountStore } from '@portcullis/core/accounts'
import { AuthorizationSnapshot, stepUpVerifierFor } from '@portcullis/core/authorization'
import { MemorySessionStore, type SecurityEvent } from '@portcullis/core/local-accounts'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import {
  createAccountRoutes,
  createSecurity,
  localAccountRoutes,
  localSessionOf,
  StepUpCookies,
} from '../../src/index.js'
import {
  cookiesOf,
  PASSWORD,
  SAME_ORIGIN,
  SESSION_COOKIE,
  sessionLocalAccounts,
} from '../local-accounts/fixture.js'

async function accountApp(options: { cookies?: boolean } = {}) {
  const sessions = new MemorySessionStore()
  const stepUpStore = new MemoryStepUpStore()
  const accounts = new MemoryAccountStore({ cascade: [sessions, stepUpStore] })
  const events: SecurityEvent[] = []
  const local = sessionLocalAccounts({
    accounts,
    sessions,
    events: (event) => {
      events.push(event)
    },
  })
  const stepUp = new StepUpService({ store: stepUpStore })
  const security = createSecurity({
    mechanisms: local.mechanisms,
    stepUp: {
      verifier: stepUpVerifierFor(stepUp, (request) => {
        const session = localSessionOf({ ...request, snapshot: AuthorizationSnapshot.empty })
        return session && { securityEpoch: session.securityEpoch, sessionBinding: session.sessionHandle }
      }),
      ...(options.cookies === true ? { cookies: new StepUpCookies() } : {}),
    },
    openapi: { info: { title: 'accounts', version: '1' } },
  })
  const app = express()
  app.use(security.middleware)
  app.use(localAccountRoutes({ local, security }))
  app.use(createAccountRoutes({ security, local, service: new AccountService({ accounts, local, stepUp }) }))
  app.get('/openapi.json', (_request, response) => {
    response.json(security.openapi())
  })
  const credentials = { username: 'alice', password: PASSWORD }
  await request(app).post('/auth/register').set(SAME_ORIGIN).send(credentials).expect(201)
  const login = await request(app).post('/auth/login').set(SAME_ORIGIN).send(credentials)
  expect(login.status).toBe(200)
  // `__Host-` cookies are `Secure`: this plain-HTTP client carries the session cookie by hand.
  const cookie = cookiesOf(login).get(SESSION_COOKIE) ?? ''
  const agent = {
    get: (path: string) => request(app).get(path).set('cookie', cookie),
    post: (path: string) => request(app).post(path).set('cookie', cookie),
  }
  return { app, agent, accounts, events, accountId: login.body.accountId as string }
}

type Agent = Awaited<ReturnType<typeof accountApp>>['agent']

const stepUp = (agent: Agent, purpose: string, body: object) =>
  agent.post(`/auth/step-up/${purpose}`).set(SAME_ORIGIN).set('accept', 'application/json').send(body)

describe('POST /auth/step-up/{purpose}', () => {
  it('answers the one-use credential as JSON, no-store, and never the password', async () => {
    const { agent } = await accountApp()
    const answer = await stepUp(agent, 'export-data', { password: PASSWORD })
    expect(answer.status).toBe(200)
    expect(answer.headers['cache-control']).toBe('no-store')
    expect(answer.body).toMatchObject({
      purpose: 'export-data',
      stepUpToken: expect.stringMatching(/^[\w-]{43}$/),
    })
    expect(JSON.stringify(answer.body)).not.toContain(PASSWORD)
  })

  it('puts the credential in the purpose cookie for a browser and sends it back to a local return_to only', async () => {
    const { agent } = await accountApp({ cookies: true })
    const browser = await agent
      .post('/auth/step-up/delete-account')
      .set(SAME_ORIGIN)
      .type('form')
      .send({ password: PASSWORD, return_to: '/settings' })
    expect(browser.status).toBe(303)
    expect(browser.headers.location).toBe('/settings')
    expect(String(browser.headers['set-cookie'])).toMatch(/__Host-portcullis-step-up-[\w-]{22}=/)
    for (const evil of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) {
      const refused = await agent
        .post('/auth/step-up/delete-account')
        .set(SAME_ORIGIN)
        .type('form')
        .send({ password: PASSWORD, return_to: evil })
      expect(refused.status, evil).toBe(400)
    }
  })

  it('a wrong password is 401; the sign-in limit then answers 429 with Retry-After', async () => {
    const { agent } = await accountApp()
    let answer = await stepUp(agent, 'delete-account', { password: 'wrong' })
    expect(answer.status).toBe(401)
    expect(answer.body.code).toBe('local.invalid_credentials')
    for (let attempt = 0; attempt < 10 && answer.status === 401; attempt += 1) {
      answer = await stepUp(agent, 'delete-account', { password: 'wrong' })
    }
    expect(answer.status).toBe(429)
    expect(answer.body.code).toBe('local.rate_limited')
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0)
    expect((await stepUp(agent, 'delete-account', { password: PASSWORD })).status).toBe(429)
  })

  it('refuses forged and malformed input with problem+json, before any attempt counts', async () => {
    const { agent } = await accountApp()
    const cases: [string, object, number, string][] = [
      ['delete-account', { password: 1 }, 400, 'account.invalid_request'],
      ['delete-account', {}, 400, 'account.invalid_request'],
      ['delete-account', { password: PASSWORD, accountId: 'someone-else' }, 400, 'account.invalid_request'],
      ['bad%20purpose', { password: PASSWORD }, 400, 'step-up.invalid_input'],
    ]
    for (const [purpose, body, status, code] of cases) {
      const answer = await stepUp(agent, purpose, body)
      expect(answer.status, JSON.stringify(body)).toBe(status)
      expect(answer.headers['content-type']).toContain('application/problem+json')
      expect(answer.body.code).toBe(code)
    }
    expect((await stepUp(agent, 'delete-account', { password: PASSWORD })).status).toBe(200)
  })

  it('is 401 without a session, and a cross-site post never reaches it (403)', async () => {
    const { app, agent } = await accountApp()
    const anonymous = await request(app).post('/auth/step-up/x').set(SAME_ORIGIN).send({ password: PASSWORD })
    expect(anonymous.status).toBe(401)
    const crossSite = await agent
      .post('/auth/step-up/delete-account')
      .set({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })
      .send({ password: PASSWORD })
    expect(crossSite.status).toBe(403)
    expect(crossSite.body.code).toBe('local.csrf_refused')
  })
})

describe('the account routes', () => {
  it('GET /auth/account lists the sign-in methods without any secret', async () => {
    const { agent, accountId } = await accountApp()
    const answer = await agent.get('/auth/account').set('accept', 'application/json')
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      accountId,
      status: 'active',
      methods: [{ kind: 'password', username: 'alice' }],
    })
    expect(JSON.stringify(answer.body)).not.toMatch(/scrypt|hash/)
  })

  it('removing the only password is 409 account.final_method; deletion needs its own credential', async () => {
    const { agent, accounts, accountId, events } = await accountApp()
    const removeToken = (await stepUp(agent, 'password-remove', { password: PASSWORD })).body.stepUpToken
    const removal = await agent
      .post('/auth/password/remove')
      .set(SAME_ORIGIN)
      .set({ accept: 'application/json', 'portcullis-step-up': removeToken })
    expect(removal.status).toBe(409)
    expect(removal.body.code).toBe('account.final_method')
    // A credential of another purpose does not delete.
    const wrongPurpose = await agent
      .post('/auth/account/delete')
      .set(SAME_ORIGIN)
      .set({ accept: 'application/json', 'portcullis-step-up': removeToken })
    expect(wrongPurpose.status).toBe(401)
    expect(wrongPurpose.body.code).toBe('step-up.required')
    const deleteToken = (await stepUp(agent, 'delete-account', { password: PASSWORD })).body.stepUpToken
    const deleted = await agent
      .post('/auth/account/delete')
      .set(SAME_ORIGIN)
      .set({ accept: 'application/json', 'portcullis-step-up': deleteToken })
    expect(deleted.status).toBe(204)
    expect(String(deleted.headers['set-cookie'])).toContain(`${SESSION_COOKIE}=;`)
    expect(await accounts.getAccount(accountId)).toBeNull()
    expect((await agent.get('/auth/account').set('accept', 'application/json')).status).toBe(401)
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['step_up.consumed', 'account.deleted']),
    )
  })

  it('documents every route in OpenAPI', async () => {
    const { app } = await accountApp()
    const paths = (await request(app).get('/openapi.json')).body.paths as Record<string, unknown>
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        '/auth/account',
        '/auth/step-up/{purpose}',
        '/auth/password',
        '/auth/password/remove',
        '/auth/account/delete',
      ]),
    )
  })
})
