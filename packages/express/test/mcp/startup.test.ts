import express, { type Express } from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createMCPEndpoint, discoverRoutes, mcpResource } from '../../src/mcp/index.js'
import { call, rpc } from './fixture.js'

const ok = (_req: express.Request, res: express.Response) => {
  res.json({ ok: true })
}

function appWith(declare: (app: Express) => void) {
  const app = express()
  const mcp = createMCPEndpoint({ serverInfo: { name: 's', version: '1' } })
  app.use(mcp)
  declare(app)
  return { app, mcp }
}

const code = (expected: string) => expect.objectContaining({ code: expected })

describe('route discovery', () => {
  it('walks nested routers with their mount paths and reports wrapper marks', () => {
    const app = express()
    const inner = express.Router()
    inner.get('/config', mcpResource('config')(ok))
    inner.post('/config', ok)
    const outer = express.Router()
    outer.use('/v1', inner)
    app.use('/api', outer)
    app.get('/plain', ok)
    const routes = discoverRoutes(app.router)
    expect(routes).toEqual([
      { method: 'GET', path: '/api/v1/config', mark: { name: 'config' } },
      { method: 'POST', path: '/api/v1/config' },
      { method: 'GET', path: '/plain' },
    ])
  })

  it('keeps a wrapped handler behaving like the original', async () => {
    const app = express()
    app.get(
      '/hello/:name',
      mcpResource('hello', { template: 'app://hello/{name}' })((req, res) => {
        res.send(`hi ${req.params.name}`)
      }),
    )
    expect((await request(app).get('/hello/ann')).text).toBe('hi ann')
  })
})

describe('startup errors on attach', () => {
  it.each([
    ['a POST route', (app: Express) => app.post('/x', mcpResource('x')(ok)), 'mcp.route_not_get'],
    ['an all() route', (app: Express) => app.all('/x', mcpResource('x')(ok)), 'mcp.route_not_get'],
    [
      'template variables that are not the route parameters',
      (app: Express) => app.get('/w/:wid', mcpResource('w', { template: 'app://w/{id}' })(ok)),
      'mcp.template_route_mismatch',
    ],
    [
      'a route parameter the template leaves unbound',
      (app: Express) => app.get('/w/:wid/:fid', mcpResource('w', { template: 'app://w/{wid}' })(ok)),
      'mcp.template_route_mismatch',
    ],
    [
      'a non-template resource on a parameterised route',
      (app: Express) => app.get('/w/:wid', mcpResource('w')(ok)),
      'mcp.route_parameters_unbound',
    ],
    [
      'a wildcard route',
      (app: Express) => app.get('/files/*rest', mcpResource('files')(ok)),
      'mcp.route_path_unsupported',
    ],
    [
      'a duplicate name',
      (app: Express) => {
        app.get('/a', mcpResource('same')(ok))
        app.get('/b', mcpResource('same')(ok))
      },
      'mcp.resource_duplicate',
    ],
    [
      'the openapi name',
      (app: Express) => app.get('/o', mcpResource('openapi')(ok)),
      'mcp.resource_reserved',
    ],
    [
      'a malformed template',
      (app: Express) => app.get('/w/:a/:b', mcpResource('w', { template: 'app://w/{a}{b}' })(ok)),
      'mcp.template_invalid',
    ],
    [
      'an invalid name',
      (app: Express) => app.get('/n', mcpResource('has space')(ok)),
      'mcp.resource_name_invalid',
    ],
  ])('rejects %s', async (_label, declare, expected) => {
    const { app, mcp } = appWith(declare)
    await expect(mcp.attach(app)).rejects.toEqual(code(expected))
  })

  it('rejects attaching one endpoint to two apps and a non-app', async () => {
    const { app, mcp } = appWith(() => {})
    await mcp.attach(app)
    await expect(mcp.attach(express())).rejects.toEqual(code('mcp.endpoint_attached'))
    await expect(
      createMCPEndpoint().attach({ router: express.Router() } as unknown as Express),
    ).rejects.toEqual(code('mcp.app_invalid'))
  })

  it.each([
    [{ path: 'mcp' }],
    [{ maxBodyBytes: 0 }],
    [{ readTimeoutMs: -1 }],
    [{ maxResourceBytes: 1.5 }],
    [{ auth: ['not a function'] as unknown as express.RequestHandler[] }],
  ])('rejects the option %j', (options) => {
    expect(() => createMCPEndpoint(options)).toThrow(code('mcp.option_invalid'))
  })

  it('rejects a bad protected resource configuration', () => {
    expect(() =>
      createMCPEndpoint({
        protectedResource: { resource: 'not a url', authorizationServers: ['https://id.example'] },
      }),
    ).toThrow(code('mcp.protected_resource_invalid'))
    expect(() =>
      createMCPEndpoint({
        protectedResource: { resource: 'https://api.example/mcp', authorizationServers: [] },
      }),
    ).toThrow(code('mcp.protected_resource_invalid'))
  })

  it('attaches lazily to req.app on the first request, and reports a misconfiguration there', async () => {
    const { app } = appWith((target) => target.get('/config', mcpResource('config')(ok)))
    const listed = await rpc(app, call('resources/list'))
    expect(listed.body.result.resources.map((entry: { uri: string }) => entry.uri)).toEqual([
      'express://openapi',
      'express://config',
    ])
    const errors: unknown[] = []
    const broken = express()
    broken.use(createMCPEndpoint({ onError: (error) => errors.push(error) }))
    broken.post('/x', mcpResource('x')(ok))
    const response = await rpc(broken, call('resources/list'))
    expect(response.status).toBe(500)
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Internal error' },
    })
    expect(errors).toEqual([expect.objectContaining({ code: 'mcp.route_not_get' })])
  })

  it('uses a custom path and scheme', async () => {
    const app = express()
    const mcp = createMCPEndpoint({ path: '/agents/mcp', scheme: 'acme' })
    app.use(mcp)
    app.get('/config', mcpResource('config')(ok))
    await mcp.attach(app)
    const response = await request(app)
      .post('/agents/mcp')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(call('resources/read', { uri: 'acme://config' })))
    expect(response.body.result.contents[0]).toEqual({
      uri: 'acme://config',
      mimeType: 'application/json',
      text: '{"ok":true}',
    })
    expect((await request(app).get('/agents/mcp')).status).toBe(405)
  })

  it('dispatches a body an upstream JSON parser already consumed', async () => {
    const app = express()
    app.use(express.json())
    const mcp = createMCPEndpoint()
    app.use(mcp)
    await mcp.attach(app)
    const response = await request(app)
      .post('/mcp')
      .set('Content-Type', 'application/json')
      .send(call('ping', undefined, 7))
    expect(response.body).toEqual({ jsonrpc: '2.0', id: 7, result: {} })
  })
})
