// Every answer of a Hono app behind `security.middleware` carries the header baseline, however the
// handler built it; every error becomes problem+json through `app.onError(security.onError)` without
// leaking its message; the OpenAPI document and the health route. Served over `@hono/node-server`.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AdapterApp } from '@portcullis/conformance/adapters'
import { InvalidInputError, PortcullisError } from '@portcullis/core/errors'
import { anonymous, required } from '@portcullis/core/policy'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { HTTPException } from 'hono/http-exception'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSecurity, HttpProblem, healthRoute, securityOf } from '../src/index.js'
import { listen } from './conformance/hono-app.js'
import { apiKey } from './support/api-key.js'

const BASELINE: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
}

/** A secret in an error message: it must never reach a response. */
const SECRET = 'postgres://app:hunter2@db.internal/prod'

class QuotaExceededError extends PortcullisError {
  readonly retryAfterSeconds = 30
  constructor() {
    super('billing.quota_exceeded', 'rate-limited', `quota of ${SECRET} exceeded`)
  }
}

function expectBaseline(answer: Response): void {
  for (const [name, value] of Object.entries(BASELINE)) expect(answer.headers.get(name), name).toBe(value)
}

async function expectProblem(
  answer: Response,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  expect(answer.status).toBe(status)
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(answer.headers.get('cache-control')).toBe('no-store')
  expectBaseline(answer)
  const text = await answer.text()
  expect(text).not.toContain('hunter2')
  expect(text).not.toMatch(/\bat .+:\d+:\d+/)
  const body = JSON.parse(text) as Record<string, unknown>
  expect(body).toMatchObject({ status, code })
  return body
}

let upstream: Server
let upstreamUrl: string
let served: AdapterApp
const observed: unknown[] = []
let health = { database: true }

beforeAll(async () => {
  // a separate server, so a handler can answer with a `fetch()` Response (its headers are immutable)
  upstream = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', 'x-frame-options': 'SAMEORIGIN' })
    response.end('from upstream')
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`

  const security = createSecurity({
    mechanisms: [apiKey],
    defaultPolicy: anonymous(),
    openapi: { info: { title: 'Problems', version: '1.0.0' } },
    onError: (error) => {
      observed.push(error)
      // a failing observer never changes the answer
      throw new Error('the logger is down')
    },
  })
  const app = new Hono()
  app.use(security.middleware)
  app.onError(security.onError)
  const open = security.route({ auth: anonymous() })
  app.get('/json', open, (c) => c.json({ answer: 42 }))
  app.get('/raw', open, () => new Response('raw', { headers: { 'content-type': 'text/plain' } }))
  app.get('/proxied', open, () => fetch(upstreamUrl))
  app.get('/proxied/signed-in', security.route({ auth: required('api-key') }), () => fetch(upstreamUrl))
  app.get('/own-frame-policy', open, (c) => {
    c.header('x-frame-options', 'SAMEORIGIN')
    return c.text('framed')
  })
  app.get('/me', security.route({ auth: required('api-key') }), (c) => c.json(securityOf(c).principal))
  app.get('/typed', open, () => {
    throw new QuotaExceededError()
  })
  app.get('/invalid', open, () => {
    throw new InvalidInputError('orders.bad_date', `bad date near ${SECRET}`)
  })
  app.get('/teapot', open, () => {
    throw new HttpProblem({ status: 418, code: 'kitchen.teapot', detail: 'I am a teapot' })
  })
  app.get('/unknown', open, () => {
    throw new Error(`connect ECONNREFUSED ${SECRET}`)
  })
  app.get('/hono-401', open, () => {
    throw new HTTPException(401, { message: `token ${SECRET} rejected` })
  })
  app.get('/hono-404', open, () => {
    throw new HTTPException(404, { message: SECRET })
  })
  app.get('/hono-503', open, () => {
    throw new HTTPException(503, { message: SECRET })
  })
  app.post('/upload', open, bodyLimit({ maxSize: 64 }), async (c) =>
    c.json({ size: (await c.req.text()).length }),
  )
  healthRoute(app, {
    checks: {
      database: () => {
        if (!health.database) throw new Error(`cannot reach ${SECRET}`)
        return true
      },
      cache: () => true,
    },
  })
  security.ready(app)
  served = await listen(app)
})

afterAll(async () => {
  await served.close()
  await new Promise<void>((resolve) => upstream.close(() => resolve()))
})

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${served.url}${path}`, { headers })

describe('the header baseline on every answer', () => {
  it('on c.json, on a raw new Response, and keeps the body and type', async () => {
    const json = await get('/json')
    expect(json.status).toBe(200)
    expectBaseline(json)
    expect(await json.json()).toEqual({ answer: 42 })
    const raw = await get('/raw')
    expectBaseline(raw)
    expect(raw.headers.get('content-type')).toBe('text/plain')
    expect(await raw.text()).toBe('raw')
  })

  it('on a fetch() Response with immutable headers: copied, the upstream header kept, the body intact', async () => {
    for (const [path, headers] of [
      ['/proxied', {}],
      ['/proxied/signed-in', { 'x-api-key': 'alice-key' }],
    ] as const) {
      const answer = await get(path, headers)
      expect(answer.status).toBe(200)
      expect(await answer.text()).toBe('from upstream')
      // the upstream's own x-frame-options wins; the rest of the baseline is added
      expect(answer.headers.get('x-frame-options')).toBe('SAMEORIGIN')
      for (const [name, value] of Object.entries(BASELINE)) {
        if (name !== 'x-frame-options') expect(answer.headers.get(name), name).toBe(value)
      }
    }
    // a credentialed answer is no-store even when the handler's Response was immutable
    expect((await get('/proxied/signed-in', { 'x-api-key': 'alice-key' })).headers.get('cache-control')).toBe(
      'no-store',
    )
  })

  it('keeps a baseline header the handler set itself', async () => {
    const answer = await get('/own-frame-policy')
    expect(answer.headers.get('x-frame-options')).toBe('SAMEORIGIN')
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('on the problems of a route policy and on a route no one declared', async () => {
    await expectProblem(await get('/me'), 401, 'authentication.required')
    await expectProblem(await get('/me', { 'x-api-key': 'forged' }), 401, 'authentication.required')
    const granted = await get('/me', { 'x-api-key': 'alice-key' })
    expectBaseline(granted)
    expect(await granted.json()).toEqual({ id: 'alice', kind: 'user' })
    const missing = await get('/nowhere')
    expect(missing.status).toBe(404)
    expectBaseline(missing)
  })
})

describe('app.onError(security.onError): every error is problem+json, never its message', () => {
  it('a typed PortcullisError: the status of its class, its code, a generic detail, its Retry-After', async () => {
    const quota = await get('/typed')
    expect(quota.headers.get('retry-after')).toBe('30')
    expect(await expectProblem(quota, 429, 'billing.quota_exceeded')).toEqual({
      type: 'about:blank',
      title: 'Too Many Requests',
      status: 429,
      code: 'billing.quota_exceeded',
      detail: 'Too many requests',
    })
    const invalid = await expectProblem(await get('/invalid'), 400, 'orders.bad_date')
    expect(invalid.detail).toBe('The request is malformed')
  })

  it('an HttpProblem as given', async () => {
    const teapot = await expectProblem(await get('/teapot'), 418, 'kitchen.teapot')
    expect(teapot.detail).toBe('I am a teapot')
  })

  it('an unknown error: 500 internal.error, the secret in its message never rendered', async () => {
    const body = await expectProblem(await get('/unknown'), 500, 'internal.error')
    expect(JSON.stringify(body)).not.toContain('ECONNREFUSED')
  })

  it("Hono's HTTPException: a 4xx keeps its status with a generic problem, a 5xx is a plain 500", async () => {
    const unauthorized = await expectProblem(await get('/hono-401'), 401, 'request.invalid')
    expect(JSON.stringify(unauthorized)).not.toContain('rejected')
    await expectProblem(await get('/hono-404'), 404, 'request.invalid')
    await expectProblem(await get('/hono-503'), 500, 'internal.error')
  })

  it("hono/body-limit's 413 is request.body_too_large; a body within the limit is served", async () => {
    const refused = await fetch(`${served.url}/upload`, { method: 'POST', body: 'x'.repeat(65) })
    await expectProblem(refused, 413, 'request.body_too_large')
    const streamed = await fetch(`${served.url}/upload`, {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          for (let index = 0; index < 10; index += 1)
            controller.enqueue(new TextEncoder().encode('x'.repeat(16)))
          controller.close()
        },
      }),
      duplex: 'half',
    } as RequestInit)
    await expectProblem(streamed, 413, 'request.body_too_large')
    const accepted = await fetch(`${served.url}/upload`, { method: 'POST', body: 'x'.repeat(64) })
    expect(await accepted.json()).toEqual({ size: 64 })
  })

  it('the onError observer saw the errors, and its own failure changed no answer', () => {
    expect(observed.some((error) => error instanceof QuotaExceededError)).toBe(true)
    expect(observed.some((error) => error instanceof HTTPException && error.status === 503)).toBe(true)
  })
})

describe('the OpenAPI route', () => {
  it('serves the document with the baseline, no-cache, documenting the routes but not itself', async () => {
    const answer = await get('/openapi.json')
    expect(answer.status).toBe(200)
    expectBaseline(answer)
    expect(answer.headers.get('cache-control')).toBe('no-cache')
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
    const document = (await answer.json()) as {
      openapi: string
      info: { title: string }
      paths: Record<string, Record<string, { security?: unknown[] }>>
    }
    expect(document.openapi).toBe('3.1.0')
    expect(document.info.title).toBe('Problems')
    expect(document.paths['/me']?.get?.security).toEqual([{ 'api-key': [] }])
    expect(document.paths['/json']?.get?.security).toEqual([])
    expect(document.paths['/openapi.json']).toBeUndefined()
    expect(document.paths['/healthz']).toBeUndefined()
    expect(JSON.stringify(document)).not.toContain('alice-key')
  })

  it('answers only GET at its path', async () => {
    const posted = await fetch(`${served.url}/openapi.json`, { method: 'POST' })
    expect(posted.status).toBe(404)
  })
})

describe('healthRoute', () => {
  it('200 ok with every check named, no-store', async () => {
    health = { database: true }
    const answer = await get('/healthz')
    expect(answer.status).toBe(200)
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expectBaseline(answer)
    expect(await answer.json()).toEqual({ status: 'ok', checks: { database: 'ok', cache: 'ok' } })
  })

  it('503 with Retry-After and only the states of the checks when one fails, never its error', async () => {
    health = { database: false }
    const answer = await get('/healthz')
    expect(answer.status).toBe(503)
    expect(answer.headers.get('retry-after')).toBe('5')
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expectBaseline(answer)
    const text = await answer.text()
    expect(text).not.toContain('hunter2')
    expect(JSON.parse(text)).toEqual({ status: 'unavailable', checks: { database: 'failed', cache: 'ok' } })
    health = { database: true }
  })
})
