import { type AuthenticationMechanism, authenticated, none } from '@portcullis/core/authentication'
import { requiresScope } from '@portcullis/core/authorization'
import { ConfigurationError } from '@portcullis/core/errors'
import { anonymous, required } from '@portcullis/core/policy'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { healthRoute, portcullis, type RejectionEvent, requirePrincipal } from '../src/index.js'

function counted(): AuthenticationMechanism & { calls: number } {
  const mechanism = {
    name: 'bearer',
    securityScheme: { type: 'http', scheme: 'bearer' } as const,
    calls: 0,
    authenticate(source: Parameters<AuthenticationMechanism['authenticate']>[0]) {
      mechanism.calls += 1
      return source.header('authorization') === 'Bearer alice'
        ? authenticated(
            { id: 'alice', kind: 'user' },
            { mechanism: 'bearer', credentialType: 'bearer-token' },
          )
        : none()
    },
  }
  return mechanism
}

async function appWith(events: RejectionEvent[] = []) {
  const bearer = counted()
  const app = Fastify()
  await app.register(portcullis, {
    mechanisms: [bearer],
    authorizationResolver: () => ({ scopes: ['read'] }),
    onRejection: (event) => events.push(event),
  })
  return { app, bearer }
}

describe('the portcullis plugin', () => {
  it('a route without auth gets the default policy: required() once a mechanism is registered', async () => {
    const { app } = await appWith()
    app.get('/secret', async () => 'secret')
    expect((await app.inject('/secret')).statusCode).toBe(401)
    expect((await app.inject({ url: '/secret', headers: { authorization: 'Bearer alice' } })).body).toBe(
      'secret',
    )
  })

  it('a HEAD request of a GET route is refused like the GET, and both run the mechanism once', async () => {
    const { app, bearer } = await appWith()
    app.get('/secret', { config: { auth: required() } }, async () => 'secret')
    expect((await app.inject({ method: 'HEAD', url: '/secret' })).statusCode).toBe(401)
    const granted = await app.inject({
      method: 'HEAD',
      url: '/secret',
      headers: { authorization: 'Bearer alice' },
    })
    expect(granted.statusCode).toBe(200)
    expect(bearer.calls).toBe(2)
    expect(app.portcullis.routes.list().map((route) => `${route.method} ${route.path}`)).toEqual([
      'GET /secret',
    ])
  })

  it('a misspelt Portcullis config key (gaurds) fails the route at startup instead of dropping its guards', async () => {
    const { app } = await appWith()
    expect(() =>
      app.get(
        '/admin',
        { config: { auth: required(), gaurds: [requiresScope('admin')] } as never },
        async () => 'x',
      ),
    ).toThrow(ConfigurationError)
  })

  it('config keys of other plugins pass untouched', async () => {
    const { app } = await appWith()
    app.get('/limited', { config: { auth: anonymous(), rateLimit: { max: 1 } } as never }, async () => 'ok')
    expect((await app.inject('/limited')).statusCode).toBe(200)
  })

  it('guards without authentication and guards reading an unknown path parameter are startup errors', async () => {
    const { app } = await appWith()
    expect(() =>
      app.get('/open', { config: { auth: anonymous(), guards: [requiresScope('read')] } }, async () => 'x'),
    ).toThrow(/guards need auth/)
  })

  it('reports every refusal with its internal reason to onRejection, never to the client', async () => {
    const events: RejectionEvent[] = []
    const { app } = await appWith(events)
    app.get('/reports/:id', { config: { guards: [requiresScope('admin')] } }, async () => 'x')
    const answer = await app.inject({ url: '/reports/7', headers: { authorization: 'Bearer alice' } })
    expect(answer.statusCode).toBe(403)
    expect(answer.body).not.toContain('admin')
    expect(events).toEqual([
      expect.objectContaining({
        status: 403,
        code: 'authorization.denied',
        method: 'GET',
        route: '/reports/:id',
      }),
    ])
  })

  it('requirePrincipal in a handler turns an anonymous caller into a 401 problem', async () => {
    const { app } = await appWith()
    app.get('/who', { config: { auth: anonymous() } }, async (request) => requirePrincipal(request).id)
    const answer = await app.inject('/who')
    expect(answer.statusCode).toBe(401)
    expect(answer.json()).toMatchObject({ code: 'authentication.required' })
  })

  it('a body over the route limit is a problem with the stable too-large code', async () => {
    const { app } = await appWith()
    app.post('/upload', { config: { auth: anonymous() }, bodyLimit: 64 }, async () => 'ok')
    const answer = await app.inject({ method: 'POST', url: '/upload', payload: { big: 'x'.repeat(200) } })
    expect(answer.json()).toMatchObject({ code: 'request.body_too_large' })
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/)
  })

  it('the health route answers 503 with Retry-After and only check states when a check fails', async () => {
    const { app } = await appWith()
    healthRoute(app, { checks: { database: () => Promise.reject(new Error('postgres://secret')) } })
    const answer = await app.inject('/healthz')
    expect(answer.statusCode).toBe(503)
    expect(answer.headers['retry-after']).toBe('5')
    expect(answer.json()).toEqual({ status: 'unavailable', checks: { database: 'failed' } })
    expect(app.portcullis.openapi().paths['/healthz']).toBeUndefined()
  })
})

describe('the plugin options', () => {
  it('errorHandler: false leaves error rendering to the application', async () => {
    const app = Fastify()
    await app.register(portcullis, { mechanisms: [], errorHandler: false })
    app.setErrorHandler((_error, _request, reply) => {
      reply.code(500).send('rendered by the application')
    })
    app.get('/boom', { config: { auth: anonymous() } }, async () => {
      throw new Error('boom')
    })
    expect((await app.inject('/boom')).body).toBe('rendered by the application')
  })

  it('refuses an unknown option with its name, like every adapter', async () => {
    const app = Fastify()
    await expect(
      app.register(portcullis, { mechanisms: [], errorHandlr: false } as never),
    ).rejects.toMatchObject({
      code: 'configuration.unknown_option',
    })
  })
})
