import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  type AuthenticationMechanism,
  authenticated,
  invalid,
  none,
  type Principal,
} from '@portcullis/core/authentication'
import { requiresTenantRole } from '@portcullis/core/authorization'
import { anonymous, required } from '@portcullis/core/policy'
import express, { type Express } from 'express'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createSecurity } from '../../src/index.js'
import { createMCPEndpoint, mcpResource } from '../../src/mcp/index.js'
import { call, rpc } from './fixture.js'

const people: Readonly<Record<string, Principal>> = {
  'owner-token': { id: 'olivia', kind: 'user' },
  'member-token': { id: 'max', kind: 'user' },
  'outsider-token': { id: 'otto', kind: 'user' },
}

/** Bearer tokens from a fixed table: a complete, real implementation of the mechanism port. */
const bearer: AuthenticationMechanism = {
  name: 'bearer',
  securityScheme: { type: 'http', scheme: 'bearer' },
  async authenticate(source) {
    const header = source.header('authorization')
    if (header === undefined) return none()
    const token = /^Bearer (\S+)$/.exec(header)?.[1]
    const principal = token === undefined || !Object.hasOwn(people, token) ? undefined : people[token]
    if (principal === undefined) return invalid('unknown token')
    return authenticated(principal, { mechanism: 'bearer', credentialType: 'static-token' })
  },
}

const TENANT_ROLES: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  olivia: { acme: ['owner'] },
  max: { acme: ['member'] },
  otto: {},
}

const seen: { path: string; authorization: string | undefined; ip: string | undefined }[] = []

async function tenantApp(): Promise<Express> {
  const security = createSecurity({
    mechanisms: [bearer],
    authorizationResolver: ({ principal }) => ({ tenants: TENANT_ROLES[principal.id] ?? {} }),
    openapi: { info: { title: 'Tenant API', version: '2.0.0' } },
  })
  const app = express()
  app.use(security.middleware)
  app.use((req, _res, next) => {
    if (req.path !== '/mcp')
      seen.push({ path: req.path, authorization: req.get('authorization'), ip: req.ip })
    next()
  })
  const mcp = createMCPEndpoint({
    security,
    auth: required('bearer'),
    protectedResource: {
      resource: 'https://tenants.example/mcp',
      authorizationServers: ['https://id.example'],
    },
  })
  app.use(mcp)
  const router = security.router()
  router.get(
    '/tenants/:tenantId/report',
    {
      guards: [requiresTenantRole({ roles: ['owner'] })],
      mcpResource: 'tenant-report',
      mcpResourceTemplate: 'tenant://{tenantId}/report',
      mcpResourceMimeType: 'application/json',
    },
    (req, res) => {
      res.json({ tenant: req.params.tenantId, viewer: req.security.principal?.id })
    },
  )
  router.get('/me', { mcpResource: 'me' }, (req, res) => {
    res.json({ id: req.security.principal?.id })
  })
  router.get(
    '/status',
    { auth: anonymous() },
    mcpResource('status', { mimeType: 'text/plain' })((_req, res) => {
      res.type('text/plain').send('all good')
    }),
  )
  app.use(router)
  await mcp.attach(app)
  return app
}

let app: Express

beforeAll(async () => {
  app = await tenantApp()
})

const as = (token: string) => ({ Authorization: `Bearer ${token}` })
const read = (uri: string, token: string) => rpc(app, call('resources/read', { uri }), as(token))

describe('resource reads go through the route pipeline with the caller credentials', () => {
  it('lets a tenant owner read a resource behind requiresTenantRole', async () => {
    const response = await read('tenant://acme/report', 'owner-token')
    expect(response.body.result.contents).toEqual([
      {
        uri: 'tenant://acme/report',
        mimeType: 'application/json',
        text: '{"tenant":"acme","viewer":"olivia"}',
      },
    ])
  })

  it.each(['member-token', 'outsider-token'])('gives -32603 with statusCode 403 to %s', async (token) => {
    const response = await read('tenant://acme/report', token)
    expect(response.status).toBe(200)
    expect(response.body.error).toMatchObject({
      code: -32603,
      message: 'Resource read failed',
      data: { statusCode: 403, content: { status: 403 } },
    })
    expect(response.text).not.toContain('owner')
  })

  it('cannot reach another tenant by changing the URI', async () => {
    const response = await read('tenant://globex/report', 'owner-token')
    expect(response.body.error.data.statusCode).toBe(403)
  })

  it('passes the credentials, client address and app middleware of the caller', async () => {
    seen.length = 0
    await read('express://me', 'member-token')
    expect(seen).toEqual([{ path: '/me', authorization: 'Bearer member-token', ip: expect.any(String) }])
  })

  it('keeps concurrent callers apart', async () => {
    const tokens = Array.from({ length: 30 }, (_, index) =>
      index % 2 === 0 ? 'owner-token' : 'member-token',
    )
    const responses = await Promise.all(tokens.map((token) => read('express://me', token)))
    responses.forEach((response, index) => {
      const expected = tokens[index] === 'owner-token' ? 'olivia' : 'max'
      expect(JSON.parse(response.body.result.contents[0].text)).toEqual({ id: expected })
    })
  })

  it('serves a wrapper-marked public route registered through the Portcullis router', async () => {
    expect((await read('express://status', 'outsider-token')).body.result.contents).toEqual([
      { uri: 'express://status', mimeType: 'text/plain', text: 'all good' },
    ])
  })

  it('answers 401 at the endpoint with a Bearer challenge pointing at the metadata, before JSON-RPC', async () => {
    for (const headers of [{}, as('forged-token')]) {
      const response = await rpc(app, call('resources/list'), headers)
      expect(response.status).toBe(401)
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(response.headers['www-authenticate']).toBe(
        'Bearer resource_metadata="https://tenants.example/.well-known/oauth-protected-resource/mcp"',
      )
    }
    const metadata = await request(app).get('/.well-known/oauth-protected-resource/mcp')
    expect(metadata.body).toMatchObject({ resource: 'https://tenants.example/mcp' })
  })

  it('publishes the security OpenAPI document and takes serverInfo from it', async () => {
    const openapi = await read('express://openapi', 'outsider-token')
    const document = JSON.parse(openapi.body.result.contents[0].text)
    expect(document.info).toMatchObject({ title: 'Tenant API', version: '2.0.0' })
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/mcp', '/tenants/{tenantId}/report']),
    )
    const init = await rpc(app, call('initialize', { protocolVersion: '2025-06-18' }), as('outsider-token'))
    expect(init.body.result.serverInfo).toEqual({ name: 'Tenant API', version: '2.0.0' })
  })

  it('works for the SDK client carrying a bearer token', async () => {
    const server: Server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    try {
      const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`)
      const errors: unknown[] = []
      const client = new Client({ name: 'tenant-test', version: '1.0.0' })
      client.onerror = (error) => errors.push(error)
      await client.connect(
        new StreamableHTTPClientTransport(url, { requestInit: { headers: as('owner-token') } }),
      )
      const { resourceTemplates } = await client.listResourceTemplates()
      expect(resourceTemplates).toEqual([
        { uriTemplate: 'tenant://{tenantId}/report', name: 'tenant-report', mimeType: 'application/json' },
      ])
      const report = await client.readResource({ uri: 'tenant://acme/report' })
      expect(report.contents[0]).toMatchObject({ text: '{"tenant":"acme","viewer":"olivia"}' })
      await client.close()
      expect(errors).toEqual([])
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('endpoint policy with the security instance', () => {
  async function endpointApp(options: Parameters<typeof createMCPEndpoint>[0]) {
    const app = express()
    const mcp = createMCPEndpoint(options)
    app.use(mcp)
    await mcp.attach(app)
    return app
  }

  it('defaults to the security default policy (required() when mechanisms exist)', async () => {
    const app = await endpointApp({ security: createSecurity({ mechanisms: [bearer] }) })
    expect((await rpc(app, call('ping'))).status).toBe(401)
    expect((await rpc(app, call('ping'), as('outsider-token'))).body.result).toEqual({})
  })

  it('can be opened explicitly with anonymous()', async () => {
    const app = await endpointApp({ security: createSecurity({ mechanisms: [bearer] }), auth: anonymous() })
    expect((await rpc(app, call('ping'))).body.result).toEqual({})
  })

  it('rejects a forged token under an authenticating policy; anonymous() reads no credential', async () => {
    const app = await endpointApp({ security: createSecurity({ mechanisms: [bearer] }), auth: anonymous() })
    // anonymous() reads no credential at all, so a forged token is simply ignored at the endpoint ...
    expect((await rpc(app, call('ping'), as('forged'))).status).toBe(200)
    const guarded = await endpointApp({
      security: createSecurity({ mechanisms: [bearer] }),
      auth: required(),
    })
    // ... while any authenticating policy rejects it
    expect((await rpc(guarded, call('ping'), as('forged'))).status).toBe(401)
  })
})

describe('marking mistakes are startup errors at registration', () => {
  function setup() {
    const security = createSecurity({ mechanisms: [bearer] })
    createMCPEndpoint({ security })
    return security.router()
  }

  it('refuses the route option form on a POST route', () => {
    expect(() => setup().post('/reports', { mcpResource: 'reports' }, (_req, res) => res.end())).toThrow(
      expect.objectContaining({ code: 'mcp.route_not_get' }),
    )
  })

  it('refuses the wrapper form on a DELETE route', () => {
    const handler = mcpResource('gone')((_req, res) => {
      res.end()
    })
    expect(() => setup().delete('/gone', handler)).toThrow(
      expect.objectContaining({ code: 'mcp.route_not_get' }),
    )
  })

  it('refuses template variables that are not the route parameters', () => {
    expect(() =>
      setup().get(
        '/tenants/:tenantId/report',
        { mcpResource: 'r', mcpResourceTemplate: 'tenant://{tenant}/report' },
        (_req, res) => res.end(),
      ),
    ).toThrow(expect.objectContaining({ code: 'mcp.template_route_mismatch' }))
  })

  it('refuses a non-template resource on a route with parameters', () => {
    expect(() =>
      setup().get('/tenants/:tenantId', { mcpResource: 'tenant' }, (_req, res) => res.end()),
    ).toThrow(expect.objectContaining({ code: 'mcp.route_parameters_unbound' }))
  })

  it('refuses an auth policy without the security instance', () => {
    expect(() => createMCPEndpoint({ auth: required() })).toThrow(
      expect.objectContaining({ code: 'mcp.option_invalid' }),
    )
  })
})
