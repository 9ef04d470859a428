import express, { type Express, type NextFunction, type Request, type Response } from 'express'
import request from 'supertest'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMCPEndpoint, type MCPEndpoint, mcpResource } from '../../src/mcp/index.js'
import { call, rpc } from './fixture.js'

// Reads go straight to the marked route's handler chain compiled at attach(), yet run everything a direct
// GET of the path would: path-scoped app and router middleware (which can refuse), route middleware and
// error handlers. Where a layer's participation depends on the template values, the route falls back to
// the whole router.

interface Seen {
  readonly layer: string
  readonly baseUrl: string
  readonly url: string
  readonly originalUrl: string
  readonly params: Record<string, string>
}

const seen: Seen[] = []
let etags = 0
/** GET requests that went through the application's whole router (the outer /mcp POST is not one). */
let walks = 0

function recorder(layer: string, refuseWith?: number) {
  return (req: Request, res: Response, next: NextFunction) => {
    seen.push({
      layer,
      baseUrl: req.baseUrl,
      url: req.url,
      originalUrl: req.originalUrl,
      params: { ...req.params } as Record<string, string>,
    })
    if (refuseWith !== undefined && req.get('x-refuse') === layer) {
      res.status(refuseWith).json({ refusedBy: layer })
      return
    }
    next()
  }
}

async function dispatchApp(): Promise<{ app: Express; mcp: MCPEndpoint }> {
  const app = express()
  app.set('etag', () => {
    etags += 1
    return '"counted"'
  })
  type Handle = (request: Request, response: Response, done: NextFunction) => void
  const router = app.router as unknown as { handle: Handle }
  const handle = router.handle
  router.handle = function (this: unknown, request, response, done) {
    if (request.method === 'GET') walks += 1
    handle.call(this, request, response, done)
  }
  const mcp = createMCPEndpoint({ serverInfo: { name: 'dispatch', version: '1' } })
  app.use(mcp)
  app.use(recorder('app'))
  app.use('/tenants', recorder('tenants-mount', 451))
  app.use('/elsewhere', recorder('elsewhere'))
  app.get(
    '/tenants/:tenantId/report',
    recorder('route-middleware', 409),
    mcpResource('report', { template: 'tenant://{tenantId}/report' })((req, res, next) => {
      if (req.params.tenantId === 'broken') {
        next(Object.assign(new Error('report store down'), { status: 502 }))
        return
      }
      res.json({ tenant: req.params.tenantId })
    }),
  )
  const api = express.Router()
  api.use(recorder('api-router', 403))
  api.get(
    '/plans',
    mcpResource('plans')((_req, res) => {
      res.json([{ id: 'team' }])
    }),
  )
  api.get(
    '/failing',
    mcpResource('failing')(() => {
      throw new Error('inside the api router')
    }),
  )
  api.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ handledBy: 'api-router', message: error.message })
  })
  app.use('/api', api)
  const gated = express.Router()
  gated.use((_req, _res, next) => next('router'))
  gated.get(
    '/left',
    mcpResource('left')((_req, res) => {
      res.json({ unreachable: true })
    }),
  )
  app.use('/gated', gated)
  app.get('/gated/left', (_req, res) => {
    res.json({ servedBy: 'app route after the router' })
  })
  // parameterised mount: which layers run depends on the value, so the route falls back to the router
  const versioned = express.Router({ mergeParams: true })
  versioned.use(recorder('versioned-router'))
  versioned.get(
    '/notes/:note',
    mcpResource('note', { template: 'note://{version}/{note}' })((req, res) => {
      res.json({ version: req.params.version, note: req.params.note })
    }),
  )
  app.use('/v/:version', versioned)
  app.use((error: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(error.status ?? 500).json({ handledBy: 'app', message: error.message })
  })
  await mcp.attach(app)
  return { app, mcp }
}

let app: Express
let mcp: MCPEndpoint

beforeAll(async () => {
  ;({ app, mcp } = await dispatchApp())
})

beforeEach(() => {
  seen.length = 0
  etags = 0
  walks = 0
})

const read = (uri: string, headers: Record<string, string> = {}) =>
  rpc(app, call('resources/read', { uri }), headers).then((response) => response.body)

async function seenBy(run: () => Promise<unknown>): Promise<Seen[]> {
  seen.length = 0
  await run()
  return [...seen]
}

describe('compiled dispatch', () => {
  it('runs the path-scoped middleware a direct GET runs, seeing the same url, baseUrl and params', async () => {
    for (const [uri, path] of [
      ['tenant://acme/report', '/tenants/acme/report'],
      ['tenant://a%20b/report', '/tenants/a%20b/report'],
      ['express://plans', '/api/plans'],
    ] as const) {
      const direct = await seenBy(() => request(app).get(path))
      const inProcess = await seenBy(() => read(uri))
      expect(inProcess).toEqual(direct)
      expect(inProcess.map((entry) => entry.layer)).not.toContain('elsewhere')
    }
    expect(await seenBy(() => read('tenant://acme/report'))).toEqual([
      {
        layer: 'app',
        baseUrl: '',
        url: '/tenants/acme/report',
        originalUrl: '/tenants/acme/report',
        params: {},
      },
      {
        layer: 'tenants-mount',
        baseUrl: '/tenants',
        url: '/acme/report',
        originalUrl: '/tenants/acme/report',
        params: {},
      },
      {
        layer: 'route-middleware',
        baseUrl: '',
        url: '/tenants/acme/report',
        originalUrl: '/tenants/acme/report',
        params: { tenantId: 'acme' },
      },
    ])
  })

  it.each([
    ['tenant://acme/report', 'tenants-mount', 451],
    ['tenant://acme/report', 'route-middleware', 409],
    ['express://plans', 'api-router', 403],
  ])('lets %s be refused by the %s middleware (status %i)', async (uri, layer, status) => {
    const body = await read(uri, { 'X-Refuse': layer })
    expect(body.error).toEqual({
      code: -32603,
      message: 'Resource read failed',
      data: { statusCode: status, content: { refusedBy: layer } },
    })
  })

  it('sends route and router errors to the error handlers a direct GET reaches', async () => {
    expect((await read('tenant://broken/report')).error.data).toEqual({
      statusCode: 502,
      content: { handledBy: 'app', message: 'report store down' },
    })
    expect((await read('express://failing')).error.data).toEqual({
      statusCode: 500,
      content: { handledBy: 'api-router', message: 'inside the api router' },
    })
  })

  it("continues after a router that calls next('router'), as a direct GET does", async () => {
    expect((await request(app).get('/gated/left')).body).toEqual({ servedBy: 'app route after the router' })
    expect(JSON.parse((await read('express://left')).result.contents[0].text)).toEqual({
      servedBy: 'app route after the router',
    })
  })

  it('never walks the whole router for a compiled route', async () => {
    await request(app).get('/api/plans')
    expect(walks).toBe(1)
    walks = 0
    await read('express://plans')
    await read('tenant://acme/report')
    expect(walks).toBe(0)
  })

  it('falls back to the whole router under a parameterised mount, with the same results', async () => {
    const direct = await seenBy(() => request(app).get('/v/2/notes/n1'))
    walks = 0
    const body = await read('note://2/n1')
    expect(JSON.parse(body.result.contents[0].text)).toEqual({ version: '2', note: 'n1' })
    expect(walks).toBe(1)
    expect(await seenBy(() => read('note://2/n1'))).toEqual(direct)
  })

  it('computes no ETag for the inner response', async () => {
    await request(app).get('/api/plans')
    expect(etags).toBe(1)
    etags = 0
    const body = await read('express://plans', { 'If-None-Match': '"counted"' })
    expect(body.result.contents[0].text).toBe('[{"id":"team"}]')
    expect(etags).toBe(0)
  })
})

describe('compiled dispatch, decided per route', () => {
  async function appWith(declare: (target: Express) => void) {
    const target = express()
    const endpoint = createMCPEndpoint({ serverInfo: { name: 'per-route', version: '1' } })
    target.use(endpoint)
    declare(target)
    await endpoint.attach(target)
    return target
  }

  it('serves a value another route claims from that route, like a direct GET', async () => {
    const target = await appWith((target) => {
      target.get('/tenants/special/report', (_req, res) => {
        res.json({ special: true })
      })
      target.get(
        '/tenants/:tenantId/report',
        mcpResource('report', { template: 'tenant://{tenantId}/report' })((req, res) => {
          res.json({ tenant: req.params.tenantId })
        }),
      )
    })
    const readText = async (uri: string) =>
      JSON.parse((await rpc(target, call('resources/read', { uri }))).body.result.contents[0].text)
    expect(await readText('tenant://special/report')).toEqual({ special: true })
    expect(await readText('tenant://acme/report')).toEqual({ tenant: 'acme' })
  })

  it('runs router.param callbacks', async () => {
    const target = await appWith((target) => {
      target.param('tenantId', (req, _res, next, value) => {
        ;(req as Request & { tenant?: string }).tenant = `loaded ${value}`
        next()
      })
      target.get(
        '/tenants/:tenantId',
        mcpResource('tenant', { template: 'tenant://{tenantId}' })((req, res) => {
          res.json({ tenant: (req as Request & { tenant?: string }).tenant })
        }),
      )
    })
    const body = (await rpc(target, call('resources/read', { uri: 'tenant://acme' }))).body
    expect(JSON.parse(body.result.contents[0].text)).toEqual({ tenant: 'loaded acme' })
  })

  it('sees middleware added after attach()', async () => {
    const late = express()
    const endpoint = createMCPEndpoint({ serverInfo: { name: 'late', version: '1' } })
    late.use(endpoint)
    late.get(
      '/plans',
      mcpResource('plans')((_req, res) => {
        res.json([])
      }),
    )
    await endpoint.attach(late)
    const router = late.router as unknown as { stack: unknown[] }
    // inserted before the route, as if app.use() had been called before declaring it
    late.use((_req, res) => {
      res.status(423).json({ locked: true })
    })
    router.stack.splice(1, 0, router.stack.pop())
    const body = (await rpc(late, call('resources/read', { uri: 'express://plans' }))).body
    expect(body.error.data).toEqual({ statusCode: 423, content: { locked: true } })
  })

  it('matches a literal route through a parameterised or RegExp mount exactly as Express does', async () => {
    const target = await appWith((target) => {
      target.use('/:section', (req, res, next) => {
        res.setHeader('x-section', String(req.params.section))
        next()
      })
      // ends inside a segment: Express skips it
      target.use(/^\/pla/, (_req, res, next) => {
        res.setHeader('x-partial', 'seen')
        next()
      })
      target.use(/^\/plans/, (req, res, next) => {
        res.setHeader('x-regexp', req.baseUrl)
        next()
      })
      target.get(
        '/plans',
        mcpResource('plans')((_req, res) => {
          res.json({
            section: res.getHeader('x-section'),
            partial: res.getHeader('x-partial') ?? null,
            regexp: res.getHeader('x-regexp'),
          })
        }),
      )
    })
    const expected = { section: 'plans', partial: null, regexp: '/plans' }
    expect((await request(target).get('/plans')).body).toEqual(expected)
    const body = (await rpc(target, call('resources/read', { uri: 'express://plans' }))).body
    expect(JSON.parse(body.result.contents[0].text)).toEqual(expected)
  })
})

export { mcp }
