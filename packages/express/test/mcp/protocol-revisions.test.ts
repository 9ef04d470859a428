import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  ProtocolError,
  ResourceNotFoundError,
} from '@modelcontextprotocol/client'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type AuthenticationMechanism, authenticated, invalid, none } from '@portcullis/core/authentication'
import { anonymous, optional, required } from '@portcullis/core/policy'
import express, { type Express } from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSecurity } from '../../src/index.js'
import { createMCPEndpoint, mcpResource } from '../../src/mcp/index.js'
import { call, rpc } from './fixture.js'

// One endpoint, two eras chosen per request: the official 2.x client pinned to the stateless 2026-07-28
// revision and the 1.x client on an initialize-era revision, both over real HTTP against the same app.

const bearer: AuthenticationMechanism = {
  name: 'bearer',
  securityScheme: { type: 'http', scheme: 'bearer' },
  authenticate(source) {
    const header = source.header('authorization')
    if (header === undefined) return none()
    if (header !== 'Bearer reader-token') return invalid('unknown token')
    return authenticated(
      { id: 'reader', kind: 'user' },
      { mechanism: 'bearer', credentialType: 'static-token' },
    )
  },
}

async function revisionsApp(): Promise<Express> {
  const security = createSecurity({
    mechanisms: [bearer],
    openapi: { info: { title: 'Revisions', version: '3.0.0' } },
  })
  const app = express()
  app.use(security.middleware)
  const mcp = createMCPEndpoint({ security, auth: optional(required('bearer')) })
  app.use(mcp)
  const router = security.router()
  router.get(
    '/status',
    { auth: anonymous(), mcpResource: 'status', mcpResourceTtlMs: 60_000, mcpResourceMimeType: 'text/plain' },
    (_req, res) => {
      res.type('text/plain').send('all good')
    },
  )
  router.get('/me', { auth: required('bearer'), mcpResource: 'me' }, (req, res) => {
    res.json({ id: req.security.principal.id })
  })
  router.get(
    '/greetings/:name',
    { auth: anonymous(), mcpResource: 'greeting', mcpResourceTemplate: 'greet://{name}' },
    (req, res) => {
      res.json({ hello: req.params.name })
    },
  )
  app.use(router)
  app.get(
    '/logo.png',
    mcpResource('logo', { mimeType: 'image/png', ttlMs: 5_000 })((_req, res) => {
      res.type('image/png').send(Buffer.from([0x89, 0x50, 0x4e, 0x47]))
    }),
  )
  await mcp.attach(app)
  return app
}

let app: Express
let server: Server
let url: URL

beforeAll(async () => {
  app = await revisionsApp()
  server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`)
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

const token = { Authorization: 'Bearer reader-token' }

async function modernClient(headers: Record<string, string> = token) {
  const client = new ModernClient(
    { name: 'modern-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  )
  await client.connect(new ModernTransport(url, { requestInit: { headers } }))
  return client
}

describe('2026-07-28 with the official 2.x client', () => {
  it('discovers the server and lists with caching hints', async () => {
    const client = await modernClient()
    expect(client.getServerCapabilities()).toMatchObject({ resources: {}, completions: {} })
    const list = await client.listResources()
    // plain Express routes come before the routes of security.router() (documented order)
    expect(list.resources.map((resource) => resource.uri)).toEqual([
      'express://openapi',
      'express://logo',
      'express://status',
      'express://me',
    ])
    expect(list).toMatchObject({ ttlMs: 0, cacheScope: 'private' })
    const templates = await client.listResourceTemplates()
    expect(templates.resourceTemplates).toEqual([{ uriTemplate: 'greet://{name}', name: 'greeting' }])
    await client.close()
  })

  it('reads with cacheScope from the route policy and ttlMs from the resource', async () => {
    const client = await modernClient()
    const status = await client.readResource({ uri: 'express://status' })
    expect(status).toMatchObject({
      contents: [{ uri: 'express://status', mimeType: 'text/plain', text: 'all good' }],
      ttlMs: 60_000,
      cacheScope: 'public',
    })
    const me = await client.readResource({ uri: 'express://me' })
    expect(me).toMatchObject({ contents: [{ text: '{"id":"reader"}' }], ttlMs: 0, cacheScope: 'private' })
    // a plain Express route's policy is unknown: private
    const logo = await client.readResource({ uri: 'express://logo' })
    expect(logo).toMatchObject({ contents: [{ blob: 'iVBORw==' }], ttlMs: 5_000, cacheScope: 'private' })
    const greeting = await client.readResource({ uri: 'greet://ann%20lee' })
    expect(greeting).toMatchObject({ contents: [{ text: '{"hello":"ann lee"}' }], cacheScope: 'public' })
    await client.close()
  })

  it('surfaces a missing resource as ResourceNotFoundError and a refused read as -32603', async () => {
    const client = await modernClient({})
    const missing = await client.readResource({ uri: 'express://nope' }).catch((error: unknown) => error)
    expect(missing).toBeInstanceOf(ResourceNotFoundError)
    expect(missing).toMatchObject({ code: -32602, data: { uri: 'express://nope' } })
    const refused = await client.readResource({ uri: 'express://me' }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ProtocolError)
    expect(refused).toMatchObject({ code: -32603, data: { statusCode: 401 } })
    expect(
      (
        await client.complete({
          ref: { type: 'ref/resource', uri: 'greet://{name}' },
          argument: { name: 'name', value: 'a' },
        })
      ).completion.values,
    ).toEqual([])
    await client.close()
  })
})

describe('the 2.x client in its other negotiation modes', () => {
  it("chooses 2026-07-28 in 'auto' mode and the initialize era by default", async () => {
    const auto = new ModernClient(
      { name: 'auto-test', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    )
    await auto.connect(new ModernTransport(url, { requestInit: { headers: token } }))
    expect(await auto.readResource({ uri: 'express://status' })).toMatchObject({
      cacheScope: 'public',
      ttlMs: 60_000,
    })
    await auto.close()
    const legacy = new ModernClient({ name: 'default-test', version: '1.0.0' })
    await legacy.connect(new ModernTransport(url, { requestInit: { headers: token } }))
    const result = await legacy.readResource({ uri: 'express://status' })
    expect(result.contents).toEqual([{ uri: 'express://status', mimeType: 'text/plain', text: 'all good' }])
    expect(result).not.toHaveProperty('cacheScope')
    await legacy.close()
  })
})

describe('the initialize era on the same endpoint', () => {
  it('serves the 1.x client without 2026-07-28 fields', async () => {
    const client = new LegacyClient({ name: 'legacy-test', version: '1.0.0' })
    await client.connect(new LegacyTransport(url, { requestInit: { headers: token } }))
    expect(client.getServerVersion()).toEqual({ name: 'Revisions', version: '3.0.0' })
    const result = await client.readResource({ uri: 'express://status' })
    expect(result).toEqual({
      contents: [{ uri: 'express://status', mimeType: 'text/plain', text: 'all good' }],
    })
    await client.close()
  })
})

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
}
const modernHeaders = (method: string, name?: string) => ({
  'MCP-Protocol-Version': '2026-07-28',
  'Mcp-Method': method,
  ...(name === undefined ? {} : { 'Mcp-Name': name }),
})

describe('2026-07-28 on the wire', () => {
  it('answers server/discover with supported versions, capabilities, resultType, hints and serverInfo', async () => {
    const response = await rpc(
      app,
      call('server/discover', { _meta: META }),
      modernHeaders('server/discover'),
    )
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        supportedVersions: ['2026-07-28'],
        capabilities: { resources: { subscribe: false, listChanged: false }, completions: {} },
        resultType: 'complete',
        ttlMs: 0,
        cacheScope: 'private',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'Revisions', version: '3.0.0' } },
      },
    })
  })

  it('puts resultType but no caching hints on completion results', async () => {
    const response = await rpc(
      app,
      call('completion/complete', {
        ref: { type: 'ref/resource', uri: 'greet://{name}' },
        argument: { name: 'name', value: '' },
        _meta: META,
      }),
      modernHeaders('completion/complete'),
    )
    expect(response.body.result).toEqual({
      completion: { values: [], total: 0, hasMore: false },
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'Revisions', version: '3.0.0' } },
    })
  })

  it('accepts Mcp-Name in the base64 sentinel form', async () => {
    const uri = 'greet://zoë'
    const sentinel = `=?base64?${Buffer.from(uri).toString('base64')}?=`
    const response = await rpc(
      app,
      call('resources/read', { uri, _meta: META }),
      modernHeaders('resources/read', sentinel),
    )
    expect(JSON.parse(response.body.result.contents[0].text)).toEqual({ hello: 'zoë' })
  })

  it.each([
    [
      'a version header that disagrees with _meta',
      { ...modernHeaders('resources/read', 'express://status'), 'MCP-Protocol-Version': '2025-11-25' },
    ],
    ['an Mcp-Method that disagrees with the body', modernHeaders('resources/list', 'express://status')],
    ['a missing Mcp-Name', modernHeaders('resources/read')],
    ['an Mcp-Name that disagrees with params.uri', modernHeaders('resources/read', 'express://me')],
    ['a malformed base64 Mcp-Name', modernHeaders('resources/read', '=?base64?!!?=')],
    [
      'a missing MCP-Protocol-Version',
      { 'MCP-Protocol-Version': undefined, 'Mcp-Method': 'resources/read', 'Mcp-Name': 'express://status' },
    ],
    ['a missing Mcp-Method', { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Name': 'express://status' }],
  ])('refuses %s with HTTP 400 and -32020', async (_case, headers) => {
    const response = await rpc(app, call('resources/read', { uri: 'express://status', _meta: META }), headers)
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({
      id: 1,
      error: { code: -32020, data: { mismatch: expect.any(Object) } },
    })
  })

  it('refuses an unsupported revision with -32022 naming the supported ones', async () => {
    const meta = { ...META, 'io.modelcontextprotocol/protocolVersion': '2030-01-01' }
    const response = await rpc(app, call('resources/list', { _meta: meta }), {
      'MCP-Protocol-Version': '2030-01-01',
      'Mcp-Method': 'resources/list',
    })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({
      code: -32022,
      data: { supported: ['2026-07-28'], requested: '2030-01-01' },
    })
  })

  it('refuses a request without the envelope under a 2026-07-28 header, and a malformed envelope, with -32602', async () => {
    const bare = await rpc(app, call('resources/list'), modernHeaders('resources/list'))
    expect(bare.status).toBe(400)
    expect(bare.body.error).toMatchObject({ code: -32602, data: { envelope: { missing: ['_meta'] } } })
    const { 'io.modelcontextprotocol/clientCapabilities': _omitted, ...partial } = META
    const malformed = await rpc(
      app,
      call('resources/list', { _meta: partial }),
      modernHeaders('resources/list'),
    )
    expect(malformed.status).toBe(400)
    expect(malformed.body.error).toMatchObject({
      code: -32602,
      data: { envelope: { key: 'io.modelcontextprotocol/clientCapabilities', problem: 'missing' } },
    })
  })

  it.each(['initialize', 'ping', 'resources/subscribe'])(
    'answers %s with HTTP 404 and -32601',
    async (method) => {
      const response = await rpc(app, call(method, { _meta: META }), modernHeaders(method))
      expect(response.status).toBe(404)
      expect(response.body.error).toMatchObject({ code: -32601 })
    },
  )

  it('acknowledges a 2026-07-28 notification with 202', async () => {
    const response = await rpc(
      app,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: META } },
      modernHeaders('notifications/cancelled'),
    )
    expect(response.status).toBe(202)
  })

  it('keeps legacy requests free of 2026-07-28 fields and refuses batches carrying the envelope', async () => {
    const legacy = await rpc(app, call('resources/read', { uri: 'express://status' }))
    expect(legacy.body.result).toEqual({
      contents: [{ uri: 'express://status', mimeType: 'text/plain', text: 'all good' }],
    })
    const batch = await rpc(app, [call('resources/list', { _meta: META })], {
      'MCP-Protocol-Version': undefined,
    })
    expect(batch.status).toBe(400)
    expect(batch.body.error).toMatchObject({ code: -32600 })
  })
})
