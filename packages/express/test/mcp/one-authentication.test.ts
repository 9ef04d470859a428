import { randomBytes } from 'node:crypto'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ApiKeyPepperRing, ApiKeyService, apiKey, MemoryApiKeyStore } from '@portcullis/core/api-keys'
import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import { requiresTenantRole } from '@portcullis/core/authorization'
import { anonymous, required } from '@portcullis/core/policy'
import express, { type Express } from 'express'
import request from 'supertest'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createSecurity } from '../../src/index.js'
import { createMCPEndpoint } from '../../src/mcp/index.js'
import { call, rpc } from './fixture.js'

// One JSON-RPC call authenticates once: the read shares the /mcp request's verified authentication, so
// the API-key mechanism and the authorization resolver each run exactly once per call, while the marked
// route's own policy and guards still decide (with the template variables as route parameters).

const calls = { mechanism: 0, resolver: 0 }
const keys = new ApiKeyService({
  store: new MemoryApiKeyStore(),
  peppers: new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }),
  prefix: 'mcp',
})
const TENANT_ROLES: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  olivia: { acme: ['owner'] },
  max: { acme: ['member'] },
}

function countedApiKey(): AuthenticationMechanism {
  const mechanism = apiKey({ service: keys })
  return {
    ...mechanism,
    authenticate(source) {
      calls.mechanism += 1
      return mechanism.authenticate(source)
    },
  }
}

async function appWith(endpointAuth: 'api-key' | 'open'): Promise<Express> {
  const security = createSecurity({
    mechanisms: [countedApiKey()],
    authorizationResolver: ({ principal }) => {
      calls.resolver += 1
      return { tenants: TENANT_ROLES[principal.id] ?? {} }
    },
  })
  const app = express()
  app.use(security.middleware)
  const mcp = createMCPEndpoint({
    security,
    auth: endpointAuth === 'open' ? anonymous() : required('api-key'),
    listing: 'readable',
  })
  app.use(mcp)
  const router = security.router()
  router.get(
    '/tenants/:tenantId/report',
    {
      auth: required('api-key'),
      guards: [requiresTenantRole({ roles: ['owner'] })],
      mcpResource: 'tenant-report',
      mcpResourceTemplate: 'tenant://{tenantId}/report',
    },
    (req, res) => {
      res.json({ tenant: req.params.tenantId, viewer: req.security.principal.id })
    },
  )
  router.get('/me', { auth: required('api-key'), mcpResource: 'me' }, (req, res) => {
    res.json({ id: req.security.principal.id })
  })
  router.get('/status', { auth: anonymous(), mcpResource: 'status' }, (_req, res) => {
    res.json({ ok: true })
  })
  app.use(router)
  await mcp.attach(app)
  return app
}

let owner: string
let member: string
let guarded: Express
let open: Express

beforeAll(async () => {
  owner = (await keys.issue({ ownerId: 'olivia' })).value
  member = (await keys.issue({ ownerId: 'max' })).value
  guarded = await appWith('api-key')
  open = await appWith('open')
})

beforeEach(() => {
  calls.mechanism = 0
  calls.resolver = 0
})

const read = (app: Express, uri: string, key: string) =>
  rpc(app, call('resources/read', { uri }), { 'X-API-Key': key })

describe('one authentication per JSON-RPC call', () => {
  it('a direct GET authenticates once (the reference)', async () => {
    const response = await request(guarded).get('/me').set('X-API-Key', owner)
    expect(response.body).toEqual({ id: 'olivia' })
    expect(calls).toEqual({ mechanism: 1, resolver: 1 })
  })

  it('reads a templated resource behind the endpoint policy with one mechanism and one resolver call', async () => {
    const response = await read(guarded, 'tenant://acme/report', owner)
    expect(JSON.parse(response.body.result.contents[0].text)).toEqual({ tenant: 'acme', viewer: 'olivia' })
    expect(calls).toEqual({ mechanism: 1, resolver: 1 })
  })

  it('still evaluates the route guards against the carried authentication, with the template variables', async () => {
    const refused = await read(guarded, 'tenant://acme/report', member)
    expect(refused.body.error).toMatchObject({ code: -32603, data: { statusCode: 403 } })
    expect(calls).toEqual({ mechanism: 1, resolver: 1 })
    calls.mechanism = 0
    calls.resolver = 0
    const elsewhere = await read(guarded, 'tenant://globex/report', owner)
    expect(elsewhere.body.error).toMatchObject({ code: -32603, data: { statusCode: 403 } })
    expect(calls).toEqual({ mechanism: 1, resolver: 1 })
  })

  it('authenticates once in the read when the endpoint itself is open', async () => {
    const response = await read(open, 'express://me', owner)
    expect(JSON.parse(response.body.result.contents[0].text)).toEqual({ id: 'olivia' })
    expect(calls).toEqual({ mechanism: 1, resolver: 1 })
  })

  it('runs no mechanism at all for an anonymous route behind an open endpoint', async () => {
    const response = await read(open, 'express://status', owner)
    expect(response.body.result.contents[0].text).toBe('{"ok":true}')
    expect(calls).toEqual({ mechanism: 0, resolver: 0 })
  })

  it('refuses a forged key at the endpoint after one mechanism call and no resolver call', async () => {
    const response = await read(guarded, 'express://me', 'mcp_forged_key')
    expect(response.status).toBe(401)
    expect(calls).toEqual({ mechanism: 1, resolver: 0 })
  })

  it('decides a readable listing of every resource with the same single authentication', async () => {
    const response = await rpc(guarded, call('resources/list'), { 'X-API-Key': member })
    expect(response.body.result.resources.map((entry: { name: string }) => entry.name)).toEqual([
      'openapi',
      'me',
      'status',
    ])
    expect(calls).toEqual({ mechanism: 1, resolver: 1 })
  })

  describe('with the official SDK client over real HTTP', () => {
    let server: Server
    let url: URL

    beforeAll(async () => {
      server = guarded.listen(0, '127.0.0.1')
      await new Promise((resolve) => server.once('listening', resolve))
      url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`)
    })

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve))
    })

    it('counts exactly one mechanism and one resolver call for every read', async () => {
      const client = new Client({ name: 'counter', version: '1.0.0' })
      await client.connect(
        new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'X-API-Key': owner } } }),
      )
      for (const uri of ['tenant://acme/report', 'express://me', 'tenant://acme/report']) {
        calls.mechanism = 0
        calls.resolver = 0
        const result = await client.readResource({ uri })
        expect(result.contents).toHaveLength(1)
        expect(calls).toEqual({ mechanism: 1, resolver: 1 })
      }
      await client.close()
    })
  })
})
