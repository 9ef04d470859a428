import { requiresScope, requiresTenant } from '@portcullis/core/authorization'
import { ConfigurationError } from '@portcullis/core/errors'
import { anonymous, required } from '@portcullis/core/policy'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { createSecurity, type HonoSecurity, securityOf } from '../src/index.js'
import { apiKey } from './support/api-key.js'

const CREDENTIALS: readonly Record<string, string>[] = [
  {},
  { 'x-api-key': 'alice-key' },
  { 'x-api-key': 'forged' },
]

function secured(errors: unknown[] = []): HonoSecurity {
  return createSecurity({
    mechanisms: [apiKey],
    authorizationResolver: () => ({ scopes: ['read'] }),
    openapi: { info: { title: 'Fail closed', version: '1.0.0' } },
    onError: (error) => {
      errors.push(error)
    },
  })
}

function application(security: HonoSecurity): Hono {
  const app = new Hono()
  app.use(security.middleware)
  app.onError(security.onError)
  return app
}

/** A handler that counts its runs. */
function counted() {
  const runs = { count: 0 }
  const handler = () => {
    runs.count += 1
    return Response.json({ secret: 'served' })
  }
  return { runs, handler }
}

/** What `ready(app)` threw, or undefined when it returned. */
function readyRefusal(security: HonoSecurity, app: Hono): ConfigurationError | undefined {
  try {
    security.ready(app)
  } catch (error) {
    if (error instanceof ConfigurationError) return error
    throw error
  }
  return undefined
}

/** Every request to `path`, with each credential and as HEAD, is the 500 route_not_secured problem. */
async function expectNeverServed(app: Hono, path: string, runs: { count: number }): Promise<void> {
  for (const headers of CREDENTIALS) {
    for (const method of ['GET', 'HEAD']) {
      const answer = await app.request(path, { method, headers })
      expect(answer.status).toBe(500)
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(answer.headers.get('cache-control')).toBe('no-store')
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
      const text = await answer.text()
      if (method === 'GET') {
        expect(JSON.parse(text)).toEqual({
          type: 'about:blank',
          title: 'Internal Server Error',
          status: 500,
          code: 'configuration.route_not_secured',
          detail: 'The route is refused: its security options were never applied',
        })
      }
      expect(text).not.toContain('served')
    }
  }
  expect(runs.count).toBe(0)
}

describe('security.route() is the middleware of one route: anything else fails at ready()', () => {
  it('refuses it on app.use, naming the path', () => {
    const security = secured()
    const app = application(security)
    app.use('/admin/*', security.route({ auth: required('api-key') }))
    app.get('/admin/panel', (c) => c.text('panel'))
    const error = readyRefusal(security, app)
    expect(error?.code).toBe('route.invalid_options')
    expect(error?.message).toContain('ALL /admin/*')
    expect(error?.message).toContain('not of app.use or app.all')
  })

  it('refuses it on app.use without a path', () => {
    const security = secured()
    const app = application(security)
    app.use(security.route({ auth: required('api-key') }))
    expect(readyRefusal(security, app)?.code).toBe('route.invalid_options')
  })

  it('refuses it on app.all', () => {
    const security = secured()
    const app = application(security)
    app.all('/anything', security.route({ auth: required('api-key') }), (c) => c.text('x'))
    const error = readyRefusal(security, app)
    expect(error?.code).toBe('route.invalid_options')
    expect(error?.message).toContain('ALL /anything')
  })

  it('refuses a method Portcullis does not secure (an explicit HEAD route)', () => {
    const security = secured()
    const app = application(security)
    app.on('HEAD', '/probe', security.route({ auth: required('api-key') }), (c) => c.body(null))
    expect(readyRefusal(security, app)?.code).toBe('route.invalid_options')
  })
})

describe('a marked route ready() never compiled is never served', () => {
  it('declared after ready(app): 500 route_not_secured for every credential, the handler never runs', async () => {
    const errors: unknown[] = []
    const security = secured(errors)
    const app = application(security)
    app.get('/compiled', security.route({ auth: required('api-key') }), (c) => c.text('compiled'))
    security.ready(app)
    const { runs, handler } = counted()
    app.get('/late', security.route({ auth: required('api-key') }), handler)
    await expectNeverServed(app, '/late', runs)
    // every refusal is reported to onError, naming the route (HEAD as the GET route it reaches)
    expect(errors).toHaveLength(2 * CREDENTIALS.length)
    for (const error of errors) {
      expect(error).toBeInstanceOf(ConfigurationError)
      expect((error as ConfigurationError).code).toBe('configuration.route_not_secured')
      expect((error as ConfigurationError).message).toContain('route GET /late')
    }
    // the routes ready() compiled are still secured and served
    expect((await app.request('/compiled')).status).toBe(401)
    expect(await (await app.request('/compiled', { headers: { 'x-api-key': 'alice-key' } })).text()).toBe(
      'compiled',
    )
  })

  it('a route added on a path ready() compiled for another method is refused', async () => {
    const security = secured()
    const app = application(security)
    app.get('/orders', security.route({ auth: required('api-key') }), (c) => c.text('list'))
    security.ready(app)
    const { runs, handler } = counted()
    app.post('/orders', security.route({ auth: required('api-key') }), handler)
    for (const headers of CREDENTIALS) {
      const answer = await app.request('/orders', { method: 'POST', headers })
      expect(answer.status).toBe(500)
      expect(await answer.json()).toMatchObject({ code: 'configuration.route_not_secured' })
    }
    expect(runs.count).toBe(0)
  })

  it('on an app never passed to ready(): every marked route is refused', async () => {
    const security = secured()
    const app = application(security)
    const { runs, handler } = counted()
    app.get('/never', security.route({ auth: required('api-key') }), handler)
    // an anonymous route is refused too: its options were never compiled either
    app.get('/open', security.route({ auth: anonymous() }), handler)
    await expectNeverServed(app, '/never', runs)
    await expectNeverServed(app, '/open', runs)
    expect(security.routes.list()).toEqual([])
  })

  it('a sub-app compiled on its own, then mounted under a prefix, is refused under the prefix', async () => {
    const security = secured()
    const api = new Hono()
    const { runs, handler } = counted()
    api.get('/reports', security.route({ auth: required('api-key') }), handler)
    security.ready(api)
    const app = application(security)
    app.route('/v1', api)
    await expectNeverServed(app, '/v1/reports', runs)
  })

  it('a sub-app mounted before ready(app) is compiled with its prefix and secured', async () => {
    const security = secured()
    const api = new Hono()
    api.get('/reports/:id', security.route({ auth: required('api-key') }), (c) =>
      c.json({ id: c.req.param('id'), by: securityOf(c).principal?.id }),
    )
    const app = application(security)
    app.route('/v1', api)
    security.ready(app)
    expect((await app.request('/v1/reports/7')).status).toBe(401)
    const granted = await app.request('/v1/reports/7', { headers: { 'x-api-key': 'alice-key' } })
    expect(await granted.json()).toEqual({ id: '7', by: 'alice' })
    expect(Object.keys(security.openapi().paths)).toEqual(['/v1/reports/{id}'])
  })
})

describe('ready() over routes sharing a mark, several methods, a second call', () => {
  it('one security.route() middleware on two routes secures both; app.on with two methods both', async () => {
    const security = secured()
    const app = application(security)
    const signedIn = security.route({ auth: required('api-key') })
    app.get('/a', signedIn, (c) => c.text('a'))
    app.get('/b', signedIn, (c) => c.text('b'))
    app.on(['PUT', 'DELETE'], '/c', security.route({ auth: required('api-key') }), (c) =>
      c.text(c.req.method),
    )
    security.ready(app)
    for (const [method, path] of [
      ['GET', '/a'],
      ['GET', '/b'],
      ['PUT', '/c'],
      ['DELETE', '/c'],
    ] as const) {
      expect((await app.request(path, { method })).status, `${method} ${path}`).toBe(401)
      const granted = await app.request(path, { method, headers: { 'x-api-key': 'alice-key' } })
      expect(granted.status, `${method} ${path}`).toBe(200)
    }
    const documented = security.openapi().paths as Record<string, Record<string, unknown>>
    expect(Object.keys(documented['/c'] ?? {}).sort()).toEqual(['delete', 'put'])
  })

  it('a second ready(app) is harmless, and compiles the routes declared since', async () => {
    const security = secured()
    const app = application(security)
    app.get('/first', security.route({ auth: required('api-key') }), (c) => c.text('first'))
    security.ready(app)
    app.get('/second', security.route({ auth: required('api-key') }), (c) => c.text('second'))
    expect(readyRefusal(security, app)).toBeUndefined()
    expect(security.routes.list().map((route) => route.path)).toEqual(['/first', '/second'])
    expect((await app.request('/second')).status).toBe(401)
    expect(await (await app.request('/second', { headers: { 'x-api-key': 'alice-key' } })).text()).toBe(
      'second',
    )
  })
})

describe('startup errors at ready()', () => {
  it('guards reading a parameter the path lacks', () => {
    const security = secured()
    const app = application(security)
    app.get('/report', security.route({ auth: required(), guards: [requiresTenant()] }), (c) => c.text('x'))
    const error = readyRefusal(security, app)
    expect(error?.code).toBe('route.unknown_parameter')
    expect(error?.message).toContain('guards read :tenantId')
  })

  it('guards reading an optional parameter (it may be absent)', () => {
    const security = secured()
    const app = application(security)
    app.get('/t/:tenantId?', security.route({ auth: required(), guards: [requiresTenant()] }), (c) =>
      c.text('x'),
    )
    expect(readyRefusal(security, app)?.code).toBe('route.unknown_parameter')
  })

  it('a guard reading a regular-expression parameter is satisfied by it', async () => {
    const security = secured()
    const app = application(security)
    app.get(
      '/tenants/:tenantId{[a-z]+}/report',
      security.route({ auth: required(), guards: [requiresTenant()] }),
      (c) => c.text('report'),
    )
    expect(readyRefusal(security, app)).toBeUndefined()
    // the resolver grants no tenant: the guard runs on the parsed parameter
    const refused = await app.request('/tenants/acme/report', { headers: { 'x-api-key': 'alice-key' } })
    expect(refused.status).toBe(403)
  })

  it('a duplicate route', () => {
    const security = secured()
    const app = application(security)
    app.get('/twice', security.route({ auth: required() }), (c) => c.text('a'))
    app.get('/twice', security.route({ auth: required(), guards: [requiresScope('read')] }), (c) =>
      c.text('b'),
    )
    const error = readyRefusal(security, app)
    expect(error?.code).toBe('route.duplicate')
    expect(error?.message).toContain('GET /twice')
  })

  it('guards without authentication', () => {
    const security = secured()
    const app = application(security)
    app.get('/open', security.route({ auth: anonymous(), guards: [requiresScope('read')] }), (c) =>
      c.text('x'),
    )
    expect(readyRefusal(security, app)?.code).toBe('route.guards_without_authentication')
  })

  it('a wildcard inside the path, which Portcullis cannot document', () => {
    const security = secured()
    const app = application(security)
    app.get('/files/*/meta', security.route({ auth: required() }), (c) => c.text('x'))
    const error = readyRefusal(security, app)
    expect(error?.code).toBe('route.invalid_path')
    expect(error?.message).toContain('/files/*/meta')
  })

  it('an unknown route option at security.route(), before any route is declared', () => {
    const security = secured()
    expect(() => security.route({ gaurds: [] } as never)).toThrow(ConfigurationError)
  })
})

describe('Hono path syntax in the OpenAPI document and at run time', () => {
  function pathsApp() {
    const security = secured()
    const app = application(security)
    const auth = { auth: required('api-key') }
    app.get('/items/:id{[0-9]+}', security.route(auth), (c) => c.json({ id: c.req.param('id') }))
    app.get('/files/:name?', security.route(auth), (c) => c.json({ name: c.req.param('name') ?? null }))
    app.get('/static/*', security.route(auth), (c) => c.json({ path: c.req.path }))
    app.get('/lang/:code{[a-z]{2}}', security.route(auth), (c) => c.json({ code: c.req.param('code') }))
    security.ready(app)
    return { app, security }
  }

  it('documents :id{regex} (braces inside too) as {id}, an optional last :id? as two paths, a trailing * as {wildcard}', () => {
    const { security } = pathsApp()
    const paths = security.openapi().paths as Record<
      string,
      { get?: { parameters?: { name: string; in: string; required: boolean }[] } }
    >
    expect(Object.keys(paths).sort()).toEqual([
      '/files',
      '/files/{name}',
      '/items/{id}',
      '/lang/{code}',
      '/static/{wildcard}',
    ])
    expect(paths['/items/{id}']?.get?.parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true }),
    ])
    expect(paths['/files']?.get?.parameters ?? []).toEqual([])
    expect(paths['/files/{name}']?.get?.parameters).toEqual([
      expect.objectContaining({ name: 'name', in: 'path', required: true }),
    ])
    expect(paths['/static/{wildcard}']?.get?.parameters).toEqual([
      expect.objectContaining({ name: 'wildcard', in: 'path', required: true }),
    ])
    // nothing of Hono's syntax leaks into a documented path
    for (const path of Object.keys(paths)) expect(path).not.toMatch(/[:?*()[\]]/)
  })

  it('secures every form of each route', async () => {
    const { app } = pathsApp()
    const alice = { 'x-api-key': 'alice-key' }
    for (const path of ['/items/12', '/files', '/files/a.txt', '/static/css/site.css', '/lang/fr']) {
      const refused = await app.request(path)
      expect(refused.status).toBe(401)
      expect(await refused.json()).toMatchObject({ code: 'authentication.required' })
      expect((await app.request(path, { headers: { 'x-api-key': 'forged' } })).status).toBe(401)
      expect((await app.request(path, { headers: alice })).status).toBe(200)
    }
    expect(await (await app.request('/items/12', { headers: alice })).json()).toEqual({ id: '12' })
    expect(await (await app.request('/files', { headers: alice })).json()).toEqual({ name: null })
    expect(await (await app.request('/static/css/site.css', { headers: alice })).json()).toEqual({
      path: '/static/css/site.css',
    })
    expect(await (await app.request('/lang/fr', { headers: alice })).json()).toEqual({ code: 'fr' })
    // a path the regular expression does not match is no route at all
    expect((await app.request('/items/abc', { headers: alice })).status).toBe(404)
    expect((await app.request('/lang/fra', { headers: alice })).status).toBe(404)
  })
})

describe('HEAD on a GET route', () => {
  it('is secured like GET: 401 without a credential, the handler never runs; 200 without a body with one', async () => {
    const security = secured()
    const app = application(security)
    const { runs, handler } = counted()
    app.get(
      '/reports',
      security.route({ auth: required('api-key'), guards: [requiresScope('read')] }),
      handler,
    )
    app.get(
      '/admin',
      security.route({ auth: required('api-key'), guards: [requiresScope('admin')] }),
      handler,
    )
    security.ready(app)
    for (const headers of [{}, { 'x-api-key': 'forged' }]) {
      const refused = await app.request('/reports', { method: 'HEAD', headers })
      expect(refused.status).toBe(401)
      expect(refused.headers.get('www-authenticate')).toBeNull()
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    }
    expect(runs.count).toBe(0)
    const forbidden = await app.request('/admin', { method: 'HEAD', headers: { 'x-api-key': 'alice-key' } })
    expect(forbidden.status).toBe(403)
    expect(runs.count).toBe(0)
    const granted = await app.request('/reports', { method: 'HEAD', headers: { 'x-api-key': 'alice-key' } })
    expect(granted.status).toBe(200)
    expect(await granted.text()).toBe('')
    expect(granted.headers.get('x-content-type-options')).toBe('nosniff')
    expect(runs.count).toBe(1)
  })
})
