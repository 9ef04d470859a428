import { allOf, anonymous, anyOf, exclude, optional, required } from '@portcullis/core/policy'
import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createSecurity, type RejectionEvent } from '../src/index.js'
import { alice, bob, ci, staticBearer, switchableApiKey } from './support/mechanisms.js'

function appWith(events: RejectionEvent[], sync: boolean) {
  const bearer = staticBearer(
    { 'alice-token': { principal: alice }, 'bob-token': { principal: bob } },
    { sync },
  )
  const apiKey = switchableApiKey(
    { 'alice-key': { principal: alice }, 'ci-key': { principal: ci } },
    { sync },
  )
  const security = createSecurity({
    mechanisms: [bearer, apiKey.mechanism],
    onRejection: (event) => events.push(event),
  })
  const api = security.router({ prefix: '/api' })
  const who = (req: express.Request, res: express.Response) => {
    res.json({ principal: req.security?.principal ?? null, evidence: req.security?.evidence.length ?? 0 })
  }
  api.get('/default', who)
  api.get('/required', { auth: required() }, who)
  api.get('/bearer-only', { auth: required('bearer') }, who)
  api.get('/either', { auth: anyOf('bearer', 'api-key') }, who)
  api.get('/both', { auth: allOf('bearer', 'api-key') }, who)
  api.get('/maybe', { auth: optional(required('bearer')) }, who)
  api.get('/public', { auth: anonymous() }, who)
  api.get('/excluded', { auth: exclude() }, who)
  const app = express()
  app.use(security.middleware)
  app.use(api)
  return { app, bearer, apiKey, security }
}

const expectProblem = (response: request.Response, status: number, code: string) => {
  expect(response.status).toBe(status)
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(response.headers['cache-control']).toBe('no-store')
  expect(response.body).toMatchObject({ type: 'about:blank', status, code })
}

// Mechanisms may answer with or without a promise; the adapter must behave the same either way.
describe.each([
  { answering: 'asynchronously', sync: false },
  { answering: 'synchronously', sync: true },
])('route policy through Express (mechanisms answering $answering)', ({ sync }) => {
  const appFor = (events: RejectionEvent[] = []) => appWith(events, sync)

  it('answers 401 problem+json when no credential is presented, with a Bearer challenge', async () => {
    const { app } = appFor()
    for (const path of ['/api/default', '/api/required', '/api/either', '/api/both']) {
      const response = await request(app).get(path)
      expectProblem(response, 401, 'authentication.required')
      expect(response.body).toEqual({
        type: 'about:blank',
        title: 'Unauthorized',
        status: 401,
        code: 'authentication.required',
        detail: 'Authentication required',
      })
      expect(response.headers['www-authenticate']).toBe('Bearer')
    }
  })

  it('grants the accepted mechanisms and exposes the principal and evidence on the request', async () => {
    const { app } = appFor()
    const viaBearer = await request(app).get('/api/required').set('Authorization', 'Bearer alice-token')
    expect(viaBearer.status).toBe(200)
    expect(viaBearer.body).toEqual({ principal: alice, evidence: 1 })
    expect(viaBearer.headers['cache-control']).toBe('no-store')
    const viaKey = await request(app).get('/api/either').set('x-api-key', 'ci-key')
    expect(viaKey.body.principal).toEqual(ci)
    const both = await request(app)
      .get('/api/both')
      .set('Authorization', 'Bearer alice-token')
      .set('x-api-key', 'alice-key')
    expect(both.body).toEqual({ principal: alice, evidence: 2 })
  })

  it('rejects a credential of a mechanism the route does not accept', async () => {
    const { app } = appFor()
    expectProblem(
      await request(app).get('/api/bearer-only').set('x-api-key', 'ci-key'),
      401,
      'authentication.required',
    )
    expectProblem(
      await request(app).get('/api/both').set('x-api-key', 'alice-key'),
      401,
      'authentication.required',
    )
  })

  it('rejects credentials naming different principals even when each is valid', async () => {
    const { app } = appFor()
    const response = await request(app)
      .get('/api/both')
      .set('Authorization', 'Bearer alice-token')
      .set('x-api-key', 'ci-key')
    expectProblem(response, 401, 'authentication.required')
    // The non-qualifying credential still has to agree on a route that names only bearer.
    const other = await request(app)
      .get('/api/bearer-only')
      .set('Authorization', 'Bearer bob-token')
      .set('x-api-key', 'alice-key')
    expectProblem(other, 401, 'authentication.required')
  })

  it('treats a duplicated Authorization header as malformed, never picking one copy', async () => {
    const { app } = appFor()
    const response = await request(app)
      .get('/api/required')
      // superagent sends an array as repeated header lines (its types only admit this for Cookie).
      .set('Authorization', ['Bearer alice-token', 'Bearer bob-token'] as unknown as string)
    expectProblem(response, 401, 'authentication.required')
  })

  it('answers 503 with Retry-After when a dependency is down, over a valid or invalid credential', async () => {
    const { app, apiKey } = appFor()
    apiKey.state.down = true
    apiKey.state.retryAfterSeconds = 12
    for (const bearer of ['Bearer alice-token', 'Bearer wrong-token']) {
      const response = await request(app)
        .get('/api/required')
        .set('Authorization', bearer)
        .set('x-api-key', 'ci-key')
      expectProblem(response, 503, 'authentication.unavailable')
      expect(response.headers['retry-after']).toBe('12')
    }
    delete apiKey.state.retryAfterSeconds
    const unknown = await request(app).get('/api/either').set('x-api-key', 'ci-key')
    expectProblem(unknown, 503, 'authentication.unavailable')
    // a cause that knows no delay still says when to retry: the default of a 503
    expect(unknown.headers['retry-after']).toBe('5')
  })

  it('optional(): anonymous when nothing is presented, 401 when a presented credential is invalid', async () => {
    const { app } = appFor()
    const anonymousResponse = await request(app).get('/api/maybe')
    expect(anonymousResponse.status).toBe(200)
    expect(anonymousResponse.body).toEqual({ principal: null, evidence: 0 })
    expect(anonymousResponse.headers['cache-control']).toBeUndefined()
    expectProblem(
      await request(app).get('/api/maybe').set('Authorization', 'Bearer nope'),
      401,
      'authentication.required',
    )
    expectProblem(
      await request(app).get('/api/maybe').set('x-api-key', 'ci-key'),
      401,
      'authentication.required',
    )
    const ok = await request(app).get('/api/maybe').set('Authorization', 'Bearer bob-token')
    expect(ok.body.principal).toEqual(bob)
  })

  it('public and excluded routes do no credential work, even with garbage credentials', async () => {
    const { app, bearer, apiKey } = appFor()
    for (const path of ['/api/public', '/api/excluded']) {
      const response = await request(app).get(path).set('Authorization', 'Bearer nope').set('x-api-key', 'x')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ principal: null, evidence: 0 })
    }
    expect(bearer.calls).toBe(0)
    expect(apiKey.state.calls).toBe(0)
  })

  it('extracts every configured slot exactly once per request', async () => {
    const { app, bearer, apiKey } = appFor()
    await request(app).get('/api/bearer-only').set('Authorization', 'Bearer alice-token')
    expect([bearer.calls, apiKey.state.calls]).toEqual([1, 1])
  })

  it('evaluates once per request across nested secured routers, and again for the next request', async () => {
    const bearer = staticBearer({ 'alice-token': { principal: alice } }, { sync })
    const security = createSecurity({ mechanisms: [bearer] })
    const outer = security.router({ prefix: '/outer' })
    const inner = security.router()
    outer.get('/:step', { auth: required() }, (_req, _res, next) => next())
    inner.get('/outer/first', { auth: required() }, (req, res) => {
      res.json({ principal: req.security?.principal?.id ?? null })
    })
    const app = express()
    app.use(security.middleware)
    app.use(outer)
    app.use(inner)
    const first = await request(app).get('/outer/first').set('Authorization', 'Bearer alice-token')
    expect(first.body).toEqual({ principal: 'alice' })
    expect(bearer.calls).toBe(1)
    await request(app).get('/outer/first').set('Authorization', 'Bearer alice-token')
    expect(bearer.calls).toBe(2)
  })

  it('reports the internal reason to onRejection but never in the body', async () => {
    const events: RejectionEvent[] = []
    const { app } = appFor(events)
    const response = await request(app).get('/api/required').set('Authorization', 'Bearer wrong-token')
    expect(response.text).not.toContain('unknown token')
    expect(events).toEqual([
      {
        status: 401,
        code: 'authentication.required',
        reason: 'bearer: unknown token',
        method: 'GET',
        route: '/api/required',
      },
    ])
  })

  it('gives unannotated routes required() when mechanisms exist and anonymous() when none do', async () => {
    const open = createSecurity({ mechanisms: [] })
    const router = open.router()
    router.get('/hello', (req, res) => {
      res.json({ principal: req.security.principal })
    })
    const app = express().use(open.middleware).use(router)
    expect((await request(app).get('/hello')).body).toEqual({ principal: null })
    expect(open.routes.find('GET', '/hello')?.policy.authenticates).toBe(false)
  })

  it('honours an explicit defaultPolicy', async () => {
    const bearer = staticBearer({ t: { principal: alice } })
    const apiKey = switchableApiKey({ k: { principal: alice } })
    const security = createSecurity({
      mechanisms: [bearer, apiKey.mechanism],
      defaultPolicy: required('api-key'),
    })
    const router = security.router()
    router.get('/x', (_req, res) => {
      res.send('ok')
    })
    const app = express().use(router)
    expect((await request(app).get('/x').set('Authorization', 'Bearer t')).status).toBe(401)
    expect((await request(app).get('/x').set('x-api-key', 'k')).status).toBe(200)
  })
})
