import type { Express, RequestHandler } from 'express'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { call, checklistApp, rpc } from './fixture.js'

// Interoperability checklist sections 7.4 (completion) and 7.5 (JSON-RPC and transport errors).
let app: Express

beforeAll(async () => {
  ;({ app } = await checklistApp())
})

const EMPTY = { completion: { values: [], total: 0, hasMore: false } }

describe('checklist 7.4 completion', () => {
  it('7.4.29 completing a registered template argument is empty', async () => {
    const response = await rpc(
      app,
      call('completion/complete', {
        ref: { type: 'ref/resource', uri: 'app://w/{wid}/f/{fid}' },
        argument: { name: 'wid', value: '4' },
      }),
    )
    expect(response.body).toEqual({ jsonrpc: '2.0', id: 1, result: EMPTY })
  })

  it.each([
    { ref: { type: 'ref/resource', uri: 'app://unknown/{x}' }, argument: { name: 'x', value: '' } },
    {
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'test' },
    },
  ])('7.4.30 an unknown template or a prompt ref is the same empty completion: %j', async (params) => {
    expect((await rpc(app, call('completion/complete', params))).body.result).toEqual(EMPTY)
  })

  it('7.4.31 initialize advertises completions', async () => {
    const response = await rpc(app, call('initialize', { protocolVersion: '2025-11-25', capabilities: {} }))
    expect(response.body.result.capabilities.completions).toEqual({})
  })
})

describe('checklist 7.5 JSON-RPC and transport errors', () => {
  it('7.5.32 a truncated body is -32700 with id null and HTTP 400, never HTML', async () => {
    const response = await rpc(app, '{"jsonrpc": "2.0", "id": 1, "method": "ping"')
    expect(response.status).toBe(400)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    })
  })

  it('7.5.33 jsonrpc 1.0 is -32600 with the id echoed', async () => {
    const response = await rpc(app, { jsonrpc: '1.0', id: 11, method: 'ping' })
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({ jsonrpc: '2.0', id: 11, error: { code: -32600 } })
  })

  it('7.5.34 a request without method is -32600', async () => {
    expect((await rpc(app, { jsonrpc: '2.0', id: 12 })).body).toMatchObject({
      id: 12,
      error: { code: -32600 },
    })
  })

  it('7.5.35 an unknown method is -32601 with HTTP 200', async () => {
    const response = await rpc(app, { jsonrpc: '2.0', id: 10, method: 'foo/bar' })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: 10,
      error: { code: -32601, message: 'Method not found' },
    })
  })

  it('7.5.36 a request method without id is a notification: 202, nothing executed', async () => {
    let reads = 0
    const { app: counting } = await checklistApp({
      extend: (target) => {
        target.use((req, _res, next) => {
          if (req.path === '/config') reads += 1
          next()
        })
      },
    })
    const response = await rpc(counting, {
      jsonrpc: '2.0',
      method: 'resources/read',
      params: { uri: 'fw://config' },
    })
    expect(response.status).toBe(202)
    expect(response.text).toBe('')
    expect((await rpc(counting, { jsonrpc: '2.0', method: 'resources/list' })).status).toBe(202)
    expect(reads).toBe(0)
  })

  it('7.5.37 id null is -32600', async () => {
    const response = await rpc(app, { jsonrpc: '2.0', id: null, method: 'ping' })
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({ id: null, error: { code: -32600 } })
  })

  it('7.5.38 array params are -32602', async () => {
    const response = await rpc(app, { jsonrpc: '2.0', id: 13, method: 'resources/list', params: [] })
    expect(response.body).toMatchObject({ id: 13, error: { code: -32602 } })
  })

  it('7.5.39 a batch under 2025-11-25 is HTTP 400 with one -32600 error; [] too', async () => {
    const batch = [call('ping', undefined, 20), call('resources/list', undefined, 21)]
    const rejected = await rpc(app, batch)
    expect(rejected.status).toBe(400)
    expect(rejected.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } })
    const empty = await rpc(app, [], { 'MCP-Protocol-Version': undefined })
    expect(empty.status).toBe(400)
    expect(empty.body).toMatchObject({ id: null, error: { code: -32600 } })
  })

  it('7.5.39 without a version header (2025-03-26) a batch is answered as an array', async () => {
    const batch = [call('ping', undefined, 20), call('resources/list', undefined, 21)]
    const response = await rpc(app, batch, { 'MCP-Protocol-Version': undefined })
    expect(response.status).toBe(200)
    expect(response.body).toHaveLength(2)
    expect(response.body[0]).toEqual({ jsonrpc: '2.0', id: 20, result: {} })
    expect(response.body[1].result.resources[0].uri).toBe('fw://openapi')
  })

  it.each(['"hello"', '42', 'null', 'true'])('7.5.40 the body %s is -32600', async (body) => {
    const response = await rpc(app, body)
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({ id: null, error: { code: -32600 } })
  })

  it('7.5.41 an unsupported MCP-Protocol-Version is HTTP 400 with a JSON-RPC error', async () => {
    const response = await rpc(app, call('ping'), { 'MCP-Protocol-Version': '2099-01-01' })
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        data: { requested: '2099-01-01', supported: ['2025-11-25', '2025-06-18', '2025-03-26'] },
      },
    })
  })

  it.each([undefined, '*/*', 'application/json'])(
    '7.5.42 Accept %s is answered with JSON',
    async (accept) => {
      const response = await rpc(app, call('ping'), { Accept: accept })
      expect(response.status).toBe(200)
      expect(response.headers['content-type']).toMatch(/^application\/json/)
      expect(response.body).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
    },
  )

  it('7.5.42 Accept text/event-stream alone is answered as one SSE message', async () => {
    const response = await rpc(app, call('ping', undefined, 'sse'), { Accept: 'text/event-stream' })
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/)
    expect(response.text).toBe('event: message\ndata: {"jsonrpc":"2.0","id":"sse","result":{}}\n\n')
  })

  it('7.5.43 Content-Type text/plain with valid JSON is parsed anyway', async () => {
    const response = await rpc(app, call('ping'), { 'Content-Type': 'text/plain' })
    expect(response.status).toBe(200)
    expect(response.body.result).toEqual({})
  })

  it('7.5.44 a foreign Origin is 403; same origin or no Origin is served', async () => {
    const foreign = await rpc(app, call('ping'), { Origin: 'https://attacker.example' })
    expect(foreign.status).toBe(403)
    expect(foreign.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } })
    const server = app.listen(0, '127.0.0.1')
    try {
      await new Promise((resolve) => server.once('listening', resolve))
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      const same = await request(server)
        .post('/mcp')
        .set('Content-Type', 'application/json')
        .set('Origin', `http://127.0.0.1:${port}`)
        .send(JSON.stringify(call('ping')))
      expect(same.status).toBe(200)
    } finally {
      server.close()
    }
    expect((await rpc(app, call('ping'))).status).toBe(200)
    expect((await rpc(app, call('ping'), { Origin: 'null' })).status).toBe(403)
  })

  it('7.5.44 an allow-listed Origin is served', async () => {
    const { app: allowed } = await checklistApp({ allowedOrigins: ['https://inspector.example'] })
    expect((await rpc(allowed, call('ping'), { Origin: 'https://inspector.example' })).status).toBe(200)
    expect((await rpc(allowed, call('ping'), { Origin: 'https://other.example' })).status).toBe(403)
  })

  it('7.5.44 a foreign Host on a loopback-bound server is 403 (DNS rebinding)', async () => {
    const response = await rpc(app, call('ping'), { Host: 'evil.example' })
    expect(response.status).toBe(403)
    expect(response.body.error.message).toBe('Host not allowed')
    const { app: proxied } = await checklistApp({ extend: (target) => target.set('trust proxy', 'loopback') })
    expect((await rpc(proxied, call('ping'), { Host: 'api.example.com' })).status).toBe(200)
    const { app: hosts } = await checklistApp({ allowedHosts: ['api.example.com'] })
    expect((await rpc(hosts, call('ping'), { Host: 'api.example.com' })).status).toBe(200)
    expect((await rpc(hosts, call('ping'), { Host: 'localhost' })).status).toBe(403)
  })

  it('7.5.45 auth enabled: no or invalid token is 401 with a resource_metadata challenge before JSON-RPC', async () => {
    const bearer: RequestHandler = (req, res, next) => {
      if (req.get('authorization') === 'Bearer good') next()
      else res.status(401).json({ title: 'Unauthorized' })
    }
    const { app: secured } = await checklistApp({
      auth: bearer,
      protectedResource: {
        resource: 'https://api.example.com/mcp',
        authorizationServers: ['https://login.example.com'],
        scopesSupported: ['mcp:read'],
      },
    })
    for (const authorization of [undefined, 'Bearer bad']) {
      const response = await rpc(secured, '{not even json', { Authorization: authorization })
      expect(response.status).toBe(401)
      expect(response.headers['www-authenticate']).toBe(
        'Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp"',
      )
    }
    expect((await rpc(secured, call('ping'), { Authorization: 'Bearer good' })).body.result).toEqual({})
    const metadata = await request(secured).get('/.well-known/oauth-protected-resource/mcp')
    expect(metadata.status).toBe(200)
    expect(metadata.body).toEqual({
      resource: 'https://api.example.com/mcp',
      authorization_servers: ['https://login.example.com'],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:read'],
    })
  })

  it('refuses a body over the size limit with 413 problem+json request.body_too_large', async () => {
    const { app: small } = await checklistApp({ maxBodyBytes: 64 })
    const response = await rpc(small, call('resources/read', { uri: `fw://${'x'.repeat(200)}` }))
    expect(response.status).toBe(413)
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(response.body).toMatchObject({ status: 413, code: 'request.body_too_large' })
  })

  it('answers invalid UTF-8 bytes with -32700', async () => {
    const response = await request(app)
      .post('/mcp')
      .set('Content-Type', 'application/octet-stream')
      .send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))
    expect(response.status).toBe(400)
    expect(response.body.error.code).toBe(-32700)
  })
})
