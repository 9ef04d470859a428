import { ConfigurationError, InvalidInputError, PortcullisError } from '@portcullis/core/errors'
import { anonymous } from '@portcullis/core/policy'
import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createSecurity, HttpProblem, requirePrincipal, securityHeaderBaseline } from '../src/index.js'
import { alice, staticBearer } from './support/mechanisms.js'

class RateLimited extends PortcullisError {
  readonly retryAfterSeconds: number
  constructor(seconds: number) {
    super('login.rate_limited', 'rate-limited', 'too many attempts for alice@example.com')
    this.retryAfterSeconds = seconds
  }
}

function appThrowing(errors: unknown[] = []) {
  const security = createSecurity({
    mechanisms: [staticBearer({ t: { principal: alice } })],
    onError: (error) => errors.push(error),
  })
  const router = security.router()
  const thrower = (error: unknown) => () => {
    throw error
  }
  const open = { auth: anonymous() }
  router.get(
    '/invalid',
    open,
    thrower(new InvalidInputError('oauth.bad_return_to', 'return_to http://evil is not allowed')),
  )
  router.get(
    '/conflict',
    open,
    thrower(new PortcullisError('oauth.link_conflict', 'conflict', 'identity 123 owned by bob')),
  )
  router.get('/forbidden', open, thrower(new PortcullisError('x.forbidden', 'forbidden', 'no')))
  router.get('/unauth', open, thrower(new PortcullisError('x.unauth', 'unauthenticated', 'no')))
  router.get(
    '/unavailable',
    open,
    thrower(new PortcullisError('jwks.unavailable', 'unavailable', 'fetch https://idp')),
  )
  router.get('/rate', open, thrower(new RateLimited(42)))
  router.get('/rate-default', open, thrower(new PortcullisError('x.rate', 'rate-limited', 'slow down')))
  router.get('/config', open, thrower(new ConfigurationError('x.config', 'pepper missing: s3cr3t')))
  router.get('/crash', open, async () => {
    throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db')
  })
  router.get(
    '/problem',
    open,
    thrower(new HttpProblem({ status: 404, code: 'project.not_found', detail: 'No such project' })),
  )
  router.post('/json', open, express.json({ limit: 1024 }), (req, res) => {
    res.json(req.body)
  })
  router.post('/form', open, express.urlencoded({ extended: false, limit: 1024 }), (req, res) => {
    res.json(req.body)
  })
  router.get('/me', open, (req, res) => {
    res.json(requirePrincipal(req))
  })
  const app = express()
  app.use(security.middleware)
  app.use(router)
  app.get('/plain', (_req, res) => {
    res.send('plain')
  })
  return app
}

describe('problem+json error rendering', () => {
  const cases: [string, number, string, string | undefined][] = [
    ['/invalid', 400, 'oauth.bad_return_to', undefined],
    ['/unauth', 401, 'x.unauth', undefined],
    ['/forbidden', 403, 'x.forbidden', undefined],
    ['/conflict', 409, 'oauth.link_conflict', undefined],
    ['/rate', 429, 'login.rate_limited', '42'],
    ['/rate-default', 429, 'x.rate', '60'],
    ['/unavailable', 503, 'jwks.unavailable', '5'],
    ['/config', 500, 'internal.error', undefined],
    ['/crash', 500, 'internal.error', undefined],
    ['/problem', 404, 'project.not_found', undefined],
    ['/me', 401, 'authentication.required', undefined],
  ]
  for (const [path, status, code, retryAfter] of cases) {
    it(`${path} -> ${status} ${code}`, async () => {
      const response = await request(appThrowing()).get(path)
      expect(response.status).toBe(status)
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(response.body).toMatchObject({ type: 'about:blank', status, code })
      expect(response.headers['retry-after']).toBe(retryAfter)
      // Messages, causes and stacks never reach the client.
      expect(response.text).not.toMatch(/evil|bob|idp|alice@|s3cr3t|hunter2|ECONNREFUSED|\.ts:\d+|\bat\s/)
    })
  }

  it('renders body-parser failures as 400 request.invalid', async () => {
    const response = await request(appThrowing())
      .post('/json')
      .set('Content-Type', 'application/json')
      .send('{"a":')
    expect(response.status).toBe(400)
    expect(response.body.code).toBe('request.invalid')
  })

  it("renders an application body parser's size refusal as 413 request.body_too_large", async () => {
    for (const [path, type, body] of [
      ['/json', 'application/json', JSON.stringify({ a: 'x'.repeat(2048) })],
      ['/form', 'application/x-www-form-urlencoded', `a=${'x'.repeat(2048)}`],
    ] as const) {
      const response = await request(appThrowing()).post(path).set('Content-Type', type).send(body)
      expect(response.status, path).toBe(413)
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(response.body).toEqual({
        type: 'about:blank',
        title: 'Content Too Large',
        status: 413,
        code: 'request.body_too_large',
        detail: 'the body must be at most 1024 bytes',
      })
    }
    const fits = await request(appThrowing())
      .post('/json')
      .send({ a: 'x'.repeat(1000) })
    expect(fits.status).toBe(200)
  })

  it('passes every error to onError for logging', async () => {
    const errors: unknown[] = []
    await request(appThrowing(errors)).get('/crash')
    expect(errors).toHaveLength(1)
    expect(String(errors[0])).toContain('ECONNREFUSED')
  })
})

describe('security headers', () => {
  it('sends the baseline on every response, including plain routes and problems, without X-Powered-By', async () => {
    const app = appThrowing()
    // (Express's own 404 page narrows Content-Security-Policy further; that only tightens it.)
    for (const path of ['/plain', '/crash', '/me']) {
      const response = await request(app).get(path)
      for (const [name, value] of Object.entries(securityHeaderBaseline)) {
        expect(response.headers[name.toLowerCase()], `${path} ${name}`).toBe(value)
      }
      expect(response.headers['x-powered-by']).toBeUndefined()
    }
  })

  it('lets the application override or drop headers, or disable them', async () => {
    const tuned = createSecurity({
      mechanisms: [],
      headers: { 'content-security-policy': "default-src 'none'", 'X-Frame-Options': false },
    })
    const app = express().use(tuned.middleware)
    app.get('/', (_req, res) => {
      res.send('x')
    })
    const response = await request(app).get('/')
    expect(response.headers['content-security-policy']).toBe("default-src 'none'")
    expect(response.headers['x-frame-options']).toBeUndefined()
    expect(response.headers['x-content-type-options']).toBe('nosniff')
    const none = createSecurity({ mechanisms: [], headers: false })
    const bare = express().use(none.middleware)
    bare.get('/', (_req, res) => {
      res.send('x')
    })
    expect((await request(bare).get('/')).headers['x-content-type-options']).toBeUndefined()
  })

  it('marks authenticated responses no-store unless disabled; handlers may still override', async () => {
    for (const noStoreAuthenticated of [true, false]) {
      const security = createSecurity({
        mechanisms: [staticBearer({ t: { principal: alice } })],
        noStoreAuthenticated,
      })
      const router = security.router()
      router.get('/a', (_req, res) => {
        res.send('a')
      })
      router.get('/b', (_req, res) => {
        res.set('Cache-Control', 'private, max-age=5').send('b')
      })
      const app = express().use(security.middleware).use(router)
      const a = await request(app).get('/a').set('Authorization', 'Bearer t')
      expect(a.headers['cache-control']).toBe(noStoreAuthenticated ? 'no-store' : undefined)
      const b = await request(app).get('/b').set('Authorization', 'Bearer t')
      expect(b.headers['cache-control']).toBe('private, max-age=5')
    }
  })
})
