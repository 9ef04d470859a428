import { type AuthenticationMechanism, authenticated, none } from '@portcullis/core/authentication'
import { requiresScope } from '@portcullis/core/authorization'
import { ConfigurationError } from '@portcullis/core/errors'
import { required } from '@portcullis/core/policy'
import Fastify, { type FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { mcpEndpoint, portcullis } from '../src/index.js'

const apiKey: AuthenticationMechanism = {
  name: 'api-key',
  securityScheme: { type: 'apiKey', in: 'header', name: 'x-api-key' },
  authenticate: (source) =>
    source.header('x-api-key') === 'alice-key'
      ? authenticated({ id: 'alice', kind: 'user' }, { mechanism: 'api-key', credentialType: 'api-key' })
      : none(),
}

const options = { mechanisms: [apiKey], authorizationResolver: () => ({ scopes: ['read'] }) }

/** What `ready()` rejected with, or undefined when it resolved. */
async function readyRefusal(app: FastifyInstance): Promise<ConfigurationError | undefined> {
  try {
    await app.ready()
  } catch (error) {
    if (error instanceof ConfigurationError) return error
    throw error
  }
  return undefined
}

/** A handler that counts its runs. */
function counted() {
  const runs = { count: 0 }
  const handler = async () => {
    runs.count += 1
    return { secret: 'served' }
  }
  return { runs, handler }
}

/** An app whose routes Fastify does not hand over to the survey (printRoutes ignores its options). */
function withoutSurvey(app: FastifyInstance): FastifyInstance {
  const print = app.printRoutes.bind(app)
  app.printRoutes = () => print()
  return app
}

describe('a route whose Portcullis options were never compiled is never served without them', () => {
  it('a root route declared before the plugin: ready() refuses it, naming the route', async () => {
    const app = Fastify()
    const { runs, handler } = counted()
    app.get('/early', { config: { auth: required('api-key') } }, handler)
    await app.register(portcullis, options)
    const error = await readyRefusal(app)
    expect(error?.code).toBe('configuration.route_not_secured')
    expect(error?.option).toBe('route GET /early')
    expect(error?.message).toContain('route GET /early carries Portcullis route options (auth)')
    expect(error?.message).toContain('await app.register(portcullis, options)')
    expect(error?.message).not.toContain('HEAD /early')
    expect(runs.count).toBe(0)
  })

  it('a route of a sibling scope registered before the plugin: ready() refuses it', async () => {
    const app = Fastify()
    await app.register(
      async (scope) => {
        scope.get(
          '/reports/:id',
          { config: { auth: required(), guards: [requiresScope('read')] } },
          async () => 'x',
        )
      },
      { prefix: '/v1' },
    )
    await app.register(portcullis, options)
    const error = await readyRefusal(app)
    expect(error?.code).toBe('configuration.route_not_secured')
    expect(error?.message).toContain(
      'route GET /v1/reports/:id carries Portcullis route options (auth, guards)',
    )
  })

  it('a route declared right after an un-awaited register (before the plugin loaded) is refused', async () => {
    const app = Fastify()
    app.register(portcullis, options)
    app.post('/orders', { config: { auth: required() } }, async () => 'x')
    app.get('/catalog', { config: { mcpResource: 'catalog' } }, async () => 'x')
    const error = await readyRefusal(app)
    expect(error?.message).toContain('routes POST /orders, GET /catalog carry Portcullis route options')
    expect(error?.message).toContain('(auth, mcpResource)')
    expect(error?.option).toBe('route POST /orders')
  })

  it('a misspelt or application-declared option counts as a Portcullis option', async () => {
    const app = Fastify()
    app.get('/typo', { config: { gaurds: [] } as never }, async () => 'x')
    app.get('/audited', { config: { auditCategory: 'billing' } as never }, async () => 'x')
    await app.register(portcullis, { ...options, routeOptions: ['auditCategory'] })
    const error = await readyRefusal(app)
    expect(error?.message).toContain('routes GET /typo, GET /audited carry')
  })

  it('a host-constrained variant declared before the plugin is refused beside its compiled twin', async () => {
    const app = Fastify()
    app.get('/h', { constraints: { host: 'b.example' }, config: { auth: required() } }, async () => 'b')
    await app.register(portcullis, options)
    app.get('/h', { constraints: { host: 'a.example' }, config: { auth: required() } }, async () => 'a')
    const error = await readyRefusal(app)
    expect(error?.message).toContain('route GET /h carries')
  })

  it('routes before the plugin without Portcullis options stay served, with the header baseline', async () => {
    const app = Fastify()
    app.get('/plain', async () => 'plain')
    app.get('/limited', { config: { rateLimit: { max: 5 } } as never }, async () => 'limited')
    await app.register(portcullis, options)
    expect(await readyRefusal(app)).toBeUndefined()
    const answer = await app.inject('/plain')
    expect(answer.statusCode).toBe(200)
    expect(answer.headers['x-content-type-options']).toBe('nosniff')
    expect((await app.inject('/limited')).body).toBe('limited')
  })

  it('a child scope registered after the plugin is compiled: its policy runs', async () => {
    const app = Fastify()
    await app.register(portcullis, options)
    await app.register(async (scope) => {
      scope.get('/child', { config: { auth: required('api-key') } }, async () => 'child')
    })
    app.get('/root', { config: { auth: required('api-key') } }, async () => 'root')
    expect(await readyRefusal(app)).toBeUndefined()
    expect((await app.inject('/child')).statusCode).toBe(401)
    expect((await app.inject({ url: '/child', headers: { 'x-api-key': 'alice-key' } })).body).toBe('child')
    expect((await app.inject('/root')).statusCode).toBe(401)
  })

  it('two plugins in two scopes: each compiles its own routes and none is refused', async () => {
    const app = Fastify()
    app.register(async (scope) => {
      await scope.register(portcullis, options)
      scope.get('/a', { config: { auth: required('api-key') } }, async () => 'a')
    })
    app.register(async (scope) => {
      await scope.register(portcullis, { ...options, openapi: false })
      scope.get('/b', { config: { auth: required('api-key') } }, async () => 'b')
    })
    expect(await readyRefusal(app)).toBeUndefined()
    expect((await app.inject('/a')).statusCode).toBe(401)
    expect((await app.inject('/b')).statusCode).toBe(401)
  })

  it('a route outside the scope the plugin is registered in is refused too', async () => {
    const app = Fastify()
    app.register(async (scope) => {
      await scope.register(portcullis, options)
      scope.get('/inside', { config: { auth: required('api-key') } }, async () => 'in')
    })
    app.get('/outside', { config: { auth: required('api-key') } }, async () => 'out')
    const error = await readyRefusal(app)
    expect(error?.option).toBe('route GET /outside')
  })

  it('the MCP endpoint and its marked routes declared after the plugin are compiled', async () => {
    const app = Fastify()
    await app.register(portcullis, options)
    mcpEndpoint(app, { auth: required('api-key'), scheme: 'shop' })
    app.get('/plans', { config: { auth: required('api-key'), mcpResource: 'plans' } }, async () => [])
    expect(await readyRefusal(app)).toBeUndefined()
  })
})

describe('the runtime backstop, when Fastify does not hand the routes over at startup', () => {
  async function backstopApp(declare: (app: FastifyInstance, handler: () => Promise<unknown>) => void) {
    const lines: string[] = []
    const errors: unknown[] = []
    const app = withoutSurvey(
      Fastify({ logger: { level: 'error', stream: { write: (line: string) => lines.push(line) } } }),
    )
    const { runs, handler } = counted()
    declare(app, handler)
    await app.register(portcullis, { ...options, onError: (error) => errors.push(error) })
    app.get('/compiled', { config: { auth: required('api-key') } }, async () => 'compiled')
    await app.ready()
    return { app, runs, lines, errors }
  }

  it('answers every request 500 problem+json route_not_secured, never runs the handler, logs once', async () => {
    const { app, runs, lines, errors } = await backstopApp((app, handler) => {
      app.get('/early', { config: { auth: required('api-key') } }, handler)
    })
    for (const headers of [{}, { 'x-api-key': 'alice-key' }, { 'x-api-key': 'forged' }]) {
      const answer = await app.inject({ url: '/early', headers })
      expect(answer.statusCode).toBe(500)
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(answer.headers['cache-control']).toContain('no-store')
      expect(answer.json()).toEqual({
        type: 'about:blank',
        title: 'Internal Server Error',
        status: 500,
        code: 'configuration.route_not_secured',
        detail: 'The route is refused: its security options were never applied',
      })
      expect(answer.body).not.toContain('served')
    }
    expect((await app.inject({ method: 'HEAD', url: '/early' })).statusCode).toBe(500)
    expect(runs.count).toBe(0)
    const logged = lines.filter((line) => line.includes('configuration.route_not_secured'))
    expect(logged).toHaveLength(2) // GET /early once, HEAD /early once
    expect(JSON.parse(logged[0] as string)).toMatchObject({ level: 50, route: 'GET /early' })
    expect(JSON.parse(logged[0] as string).msg).toContain('route GET /early carries Portcullis route options')
    expect(errors.map((error) => (error as ConfigurationError).code)).toEqual([
      'configuration.route_not_secured',
      'configuration.route_not_secured',
    ])
  })

  it('covers a sibling scope registered before the plugin; compiled and plain routes are served', async () => {
    const { app, runs } = await backstopApp((app, handler) => {
      app.register(async (scope) => {
        scope.get('/sibling', { config: { auth: required('api-key') } }, handler)
      })
      app.get('/plain', async () => 'plain')
    })
    const refused = await app.inject({ url: '/sibling', headers: { 'x-api-key': 'alice-key' } })
    expect(refused.json()).toMatchObject({ status: 500, code: 'configuration.route_not_secured' })
    expect(runs.count).toBe(0)
    expect((await app.inject('/compiled')).statusCode).toBe(401)
    const granted = await app.inject({ url: '/compiled', headers: { 'x-api-key': 'alice-key' } })
    expect(granted.body).toBe('compiled')
    expect((await app.inject('/plain')).body).toBe('plain')
    expect((await app.inject('/missing')).statusCode).toBe(404)
  })
})
