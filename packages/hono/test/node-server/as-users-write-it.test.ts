import { anonymous, required } from '@portcullis/core/policy'
import { Hono } from 'hono'
import { basicAuth } from 'hono/basic-auth'
import { HTTPException } from 'hono/http-exception'
import { validator } from 'hono/validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSecurity, securityOf } from '../../src/index.js'
import { listen } from '../conformance/hono-app.js'
import { apiKey } from '../support/api-key.js'

// A Hono application written the way its users write one, served by `@hono/node-server`: JSON bodies
// read with `c.req.json()`, a handler's own `Cache-Control`, Hono's own `HTTPException` and
// `hono/basic-auth`, a sub-app with its own `onError` mounted with `app.route()`.
const KEY = { 'x-api-key': 'alice-key' }
const JSON_TYPE = { 'content-type': 'application/json' }
const observed: unknown[] = []

const security = createSecurity({
  mechanisms: [apiKey],
  openapi: { info: { title: 'As written', version: '1.0.0' } },
  onError: (error) => {
    observed.push(error)
  },
})
const app = new Hono()
app.use(security.middleware)
app.onError(security.onError)
const signedIn = () => security.route({ auth: required('api-key') })
const open = () => security.route({ auth: anonymous() })

app.post('/notes', signedIn(), async (c) => c.json({ saved: await c.req.json() }))
// a plain Hono route, without Portcullis route options: the same body reading, the same answer
app.post('/plain/notes', async (c) => c.json({ saved: await c.req.json() }))
// the handler's own JSON.parse failing on data of the server is the server's fault: still 500
app.get('/stored', open(), (c) => c.json(JSON.parse('{"broken": ')))
app.post(
  '/validated',
  open(),
  validator('json', (value) => value),
  (c) => c.json({ saved: c.req.valid('json') }),
)

app.get('/cached', signedIn(), (c) => {
  c.header('Cache-Control', 'private, max-age=60')
  return c.json({ a: 1 })
})
app.get('/cached/raw', signedIn(), () =>
  Response.json({ a: 1 }, { headers: { 'cache-control': 'private, max-age=30' } }),
)
app.get('/uncached', signedIn(), (c) => c.json({ a: 1 }))

app.get('/challenge', open(), () => {
  const res = new Response('Unauthorized', {
    status: 401,
    headers: {
      'WWW-Authenticate': 'Bearer realm="billing", error="invalid_token"',
      'content-type': 'text/plain',
    },
  })
  throw new HTTPException(401, { res })
})
app.get('/slow-down', open(), () => {
  throw new HTTPException(429, { res: new Response(null, { headers: { 'retry-after': '7' } }) })
})
app.get('/admin', open(), basicAuth({ username: 'admin', password: 'correct horse' }), (c) =>
  c.json({ admin: true }),
)

// a sub-app with its own error handler, mounted before ready(app)
const api = new Hono()
api.onError((error, c) => c.json({ handledBy: 'api', message: error.message }, 502))
api.get('/reports/:id', signedIn(), (c) => c.json({ id: c.req.param('id'), by: securityOf(c).principal?.id }))
api.post('/reports', signedIn(), async (c) => c.json({ saved: await c.req.json() }, 201))
api.get('/fails', signedIn(), () => {
  throw new Error('the api failed')
})
// and one nested in it, with its own error handler too
const nested = new Hono()
nested.onError((_error, c) => c.json({ handledBy: 'nested' }, 502))
nested.get('/status', signedIn(), () => {
  throw new Error('nested failed')
})
api.route('/nested', nested)
app.route('/v1', api)
security.ready(app)

// mounted after ready(app): never served without its policy
const late = new Hono()
late.onError((_error, c) => c.json({ handledBy: 'late' }, 502))
late.get('/secret', signedIn(), (c) => c.json({ secret: 'served' }))
app.route('/late', late)

let url = ''
let close: () => Promise<void> = async () => {}
beforeAll(async () => {
  ;({ url, close } = await listen(app))
})
afterAll(() => close())

const request = (path: string, init: RequestInit = {}) => fetch(`${url}${path}`, init)

async function expectProblem(response: Response, status: number, code: string) {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(response.headers.get('cache-control')).toBe('no-store')
  const body = (await response.json()) as { code: string; detail?: string }
  expect(body.code).toBe(code)
  return body
}

describe('c.req.json() on a body that is not JSON', () => {
  it.each(['{"text": ', 'not json', ''])(
    'is 400 request.invalid, as on Express, never the parse error (%j)',
    async (body) => {
      const answer = await request('/notes', { method: 'POST', headers: { ...KEY, ...JSON_TYPE }, body })
      const problem = await expectProblem(answer, 400, 'request.invalid')
      expect(problem.detail).toBe('The request is malformed')
      expect(JSON.stringify(problem)).not.toMatch(/JSON|position|token/i)
    },
  )

  it('is served when the body is JSON, and the policy runs before the body is read', async () => {
    const saved = await request('/notes', {
      method: 'POST',
      headers: { ...KEY, ...JSON_TYPE },
      body: '{"a":1}',
    })
    expect(saved.status).toBe(200)
    expect(await saved.json()).toEqual({ saved: { a: 1 } })
    await expectProblem(
      await request('/notes', { method: 'POST', headers: JSON_TYPE, body: '{"text": ' }),
      401,
      'authentication.required',
    )
  })

  it('on a plain Hono route, in a sub-app with its own onError, and through hono/validator', async () => {
    const init = { method: 'POST', headers: { ...KEY, ...JSON_TYPE }, body: '{"text": ' }
    await expectProblem(await request('/plain/notes', init), 400, 'request.invalid')
    await expectProblem(await request('/validated', init), 400, 'request.invalid')
    // the sub-app's own error handler receives the 400 problem, not a SyntaxError
    const sub = await request('/v1/reports', init)
    expect(sub.status).toBe(502)
    expect(await sub.json()).toEqual({ handledBy: 'api', message: 'The request is malformed' })
    const created = await request('/v1/reports', { ...init, body: '{"a":2}' })
    expect(created.status).toBe(201)
    expect(await created.json()).toEqual({ saved: { a: 2 } })
  })

  it("a SyntaxError of the handler's own JSON.parse is still the server's 500", async () => {
    await expectProblem(await request('/stored'), 500, 'internal.error')
    expect(observed.some((error) => error instanceof SyntaxError)).toBe(true)
  })
})

describe("a handler's own Cache-Control on an authenticated route", () => {
  it('is kept, set through c.header in any case or on a raw Response', async () => {
    const cached = await request('/cached', { headers: KEY })
    expect(cached.status).toBe(200)
    expect(cached.headers.get('cache-control')).toBe('private, max-age=60')
    expect(await cached.json()).toEqual({ a: 1 })
    const raw = await request('/cached/raw', { headers: KEY })
    expect(raw.headers.get('cache-control')).toBe('private, max-age=30')
    expect(raw.headers.get('x-frame-options')).toBe('DENY')
  })

  it('is no-store when the handler set none, and the refusal of the same route is no-store', async () => {
    expect((await request('/uncached', { headers: KEY })).headers.get('cache-control')).toBe('no-store')
    await expectProblem(await request('/cached'), 401, 'authentication.required')
  })
})

describe("HTTPException's own response headers through security.onError", () => {
  it('HTTPException(401, { res }) keeps its WWW-Authenticate (RFC 9110), with a problem body', async () => {
    const answer = await request('/challenge')
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="billing", error="invalid_token"')
    await expectProblem(answer, 401, 'request.invalid')
  })

  it("hono/basic-auth's refusal keeps its Basic challenge; the right password is served", async () => {
    const refused = await request('/admin')
    expect(refused.headers.get('www-authenticate')).toMatch(/^Basic realm=/)
    await expectProblem(refused, 401, 'request.invalid')
    const basic = `Basic ${Buffer.from('admin:correct horse').toString('base64')}`
    const granted = await request('/admin', { headers: { authorization: basic } })
    expect(await granted.json()).toEqual({ admin: true })
  })

  it("keeps a 429's Retry-After", async () => {
    const answer = await request('/slow-down')
    expect(answer.headers.get('retry-after')).toBe('7')
    await expectProblem(answer, 429, 'request.invalid')
  })
})

describe('a sub-app with its own onError, mounted with app.route() before ready()', () => {
  it('is secured: 401 without a credential, served with one', async () => {
    await expectProblem(await request('/v1/reports/7'), 401, 'authentication.required')
    const granted = await request('/v1/reports/7', { headers: KEY })
    expect(granted.status).toBe(200)
    expect(await granted.json()).toEqual({ id: '7', by: 'alice' })
    expect(granted.headers.get('cache-control')).toBe('no-store')
    await expectProblem(await request('/v1/nested/status'), 401, 'authentication.required')
  })

  it('is in the OpenAPI document, nested sub-apps included', () => {
    const paths = security.openapi().paths as Record<string, Record<string, unknown>>
    expect(Object.keys(paths['/v1/reports/{id}'] ?? {})).toEqual(['get'])
    expect(Object.keys(paths['/v1/reports'] ?? {})).toEqual(['post'])
    expect(Object.keys(paths['/v1/nested/status'] ?? {})).toEqual(['get'])
    expect(paths['/late/secret']).toBeUndefined()
    expect(security.routes.list().map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining(['GET /v1/reports/:id', 'GET /v1/fails', 'GET /v1/nested/status']),
    )
  })

  it("its own onError still handles its handlers' errors, the innermost first", async () => {
    const failed = await request('/v1/fails', { headers: KEY })
    expect(failed.status).toBe(502)
    expect(await failed.json()).toEqual({ handledBy: 'api', message: 'the api failed' })
    const nestedFailed = await request('/v1/nested/status', { headers: KEY })
    expect(nestedFailed.status).toBe(502)
    expect(await nestedFailed.json()).toEqual({ handledBy: 'nested' })
  })

  it('mounted after ready(app), it is refused for every credential, never served', async () => {
    for (const headers of [{}, KEY]) {
      const answer = await request('/late/secret', { headers })
      await expectProblem(answer, 500, 'configuration.route_not_secured')
    }
  })
})
