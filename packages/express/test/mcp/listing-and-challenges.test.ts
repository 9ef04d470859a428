import {
  type AuthenticationMechanism,
  authenticated,
  invalid,
  none,
  type Principal,
} from '@portcullis/core/authentication'
import { acrAtLeast, requiresRole, requiresScope, requiresTenantRole } from '@portcullis/core/authorization'
import { anonymous, optional, required } from '@portcullis/core/policy'
import express, { type Express } from 'express'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createSecurity } from '../../src/index.js'
import { createMCPEndpoint, type MCPEndpointOptions, mcpResource } from '../../src/mcp/index.js'
import { call, rpc } from './fixture.js'

const people: Readonly<Record<string, Principal>> = {
  'admin-token': { id: 'olivia', kind: 'user' },
  'member-token': { id: 'max', kind: 'user' },
}
const GRANTS: Readonly<
  Record<string, { roles: string[]; scopes: string[]; tenants: Record<string, string[]> }>
> = {
  olivia: { roles: ['admin'], scopes: ['mcp:read'], tenants: { acme: ['owner'] } },
  max: { roles: [], scopes: [], tenants: { acme: ['member'] } },
}

const bearer: AuthenticationMechanism = {
  name: 'bearer',
  securityScheme: { type: 'http', scheme: 'bearer' },
  authenticate(source) {
    const header = source.header('authorization')
    if (header === undefined) return none()
    const principal = people[header.replace(/^Bearer /, '')]
    if (principal === undefined) return invalid('unknown token')
    // olivia signed in with a second factor, max with a password only
    const acr = principal.id === 'olivia' ? 'mfa' : 'pwd'
    return authenticated(principal, {
      mechanism: 'bearer',
      credentialType: 'static-token',
      attributes: { acr },
    })
  },
}

let handlerRuns = 0

async function listingApp(options: Partial<MCPEndpointOptions> = {}): Promise<Express> {
  const security = createSecurity({
    mechanisms: [bearer],
    authorizationResolver: ({ principal }) => GRANTS[principal.id] ?? {},
  })
  const app = express()
  app.use(security.middleware)
  const mcp = createMCPEndpoint({ security, auth: optional(required('bearer')), ...options })
  app.use(mcp)
  const counted = (body: unknown): express.RequestHandler => {
    return (_req, res) => {
      handlerRuns += 1
      res.json(body)
    }
  }
  app.get('/plain', mcpResource('plain')(counted({ plain: true })))
  const router = security.router()
  router.get('/status', { auth: anonymous(), mcpResource: 'status' }, counted({ ok: true }))
  router.get('/me', { auth: required('bearer'), mcpResource: 'me' }, counted({ me: true }))
  router.get(
    '/admin/stats',
    { guards: [requiresRole('admin')], mcpResource: 'admin-stats' },
    counted({ stats: true }),
  )
  router.get(
    '/tenants/:tenantId/report',
    {
      guards: [requiresTenantRole({ roles: ['owner'] })],
      mcpResource: 'tenant-report',
      mcpResourceTemplate: 'tenant://{tenantId}/report',
    },
    counted({ report: true }),
  )
  router.get(
    '/admin/tenants/:tenantId',
    {
      guards: [requiresRole('admin'), requiresTenantRole({ roles: ['owner'] })],
      mcpResource: 'admin-tenant',
      mcpResourceTemplate: 'admin://tenants/{tenantId}',
    },
    counted({ tenant: true }),
  )
  app.use(router)
  await mcp.attach(app)
  return app
}

const as = (token?: string) => (token === undefined ? {} : { Authorization: `Bearer ${token}` })

async function listed(app: Express, token?: string) {
  const resources = await rpc(app, call('resources/list'), as(token))
  const templates = await rpc(app, call('resources/templates/list'), as(token))
  return {
    resources: resources.body.result.resources.map((entry: { name: string }) => entry.name),
    templates: templates.body.result.resourceTemplates.map((entry: { name: string }) => entry.name),
  }
}

describe("listing: 'readable'", () => {
  let app: Express

  beforeAll(async () => {
    app = await listingApp({ listing: 'readable' })
  })

  beforeEach(() => {
    handlerRuns = 0
  })

  it('lists for an anonymous caller only what an anonymous caller could read', async () => {
    expect(await listed(app)).toEqual({ resources: ['openapi', 'plain', 'status'], templates: [] })
  })

  it('dry-runs guards: a member sees no admin resource; templates are decided without their variables', async () => {
    expect(await listed(app, 'member-token')).toEqual({
      resources: ['openapi', 'plain', 'status', 'me'],
      templates: ['tenant-report'],
    })
    expect(await listed(app, 'admin-token')).toEqual({
      resources: ['openapi', 'plain', 'status', 'me', 'admin-stats'],
      templates: ['tenant-report', 'admin-tenant'],
    })
  })

  it('runs no handler to decide, and leaves reads alone: an unlisted resource still reads as refused', async () => {
    await listed(app, 'member-token')
    expect(handlerRuns).toBe(0)
    const response = await rpc(
      app,
      call('resources/read', { uri: 'express://admin-stats' }),
      as('member-token'),
    )
    expect(response.body.error).toMatchObject({ code: -32603, data: { statusCode: 403 } })
  })

  it("lists every marked resource by default ('all')", async () => {
    const everything = await listingApp()
    expect(await listed(everything)).toEqual({
      resources: ['openapi', 'plain', 'status', 'me', 'admin-stats'],
      templates: ['tenant-report', 'admin-tenant'],
    })
  })

  it('refuses an unknown listing mode at creation', () => {
    expect(() => createMCPEndpoint({ listing: 'visible' as never })).toThrow(
      expect.objectContaining({ code: 'mcp.option_invalid' }),
    )
  })
})

describe('challenges of the endpoint', () => {
  const METADATA = 'https://api.example/.well-known/oauth-protected-resource/mcp'
  let app: Express

  beforeAll(async () => {
    app = await listingApp({
      auth: required('bearer'),
      guards: [requiresScope('mcp:read')],
      protectedResource: {
        resource: 'https://api.example/mcp',
        authorizationServers: ['https://id.example'],
      },
    })
  })

  it('answers a missing token with 401 and resource_metadata', async () => {
    const response = await rpc(app, call('resources/list'))
    expect(response.status).toBe(401)
    expect(response.headers['www-authenticate']).toBe(`Bearer resource_metadata="${METADATA}"`)
  })

  it('answers a token without the scope with 403 insufficient_scope naming the scope (RFC 6750)', async () => {
    const response = await rpc(app, call('resources/list'), as('member-token'))
    expect(response.status).toBe(403)
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(response.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", scope="mcp:read", resource_metadata="${METADATA}"`,
    )
  })

  it("serves a token with the scope; a read the route's own policy refuses stays -32603 with statusCode", async () => {
    const allowed = await rpc(app, call('resources/read', { uri: 'express://status' }), as('admin-token'))
    expect(allowed.body.result.contents[0].text).toBe('{"ok":true}')
    const refused = await rpc(
      app,
      call('resources/read', { uri: 'tenant://globex/report' }),
      as('admin-token'),
    )
    expect(refused.status).toBe(200)
    expect(refused.headers['www-authenticate']).toBeUndefined()
    expect(refused.body.error).toMatchObject({ code: -32603, data: { statusCode: 403 } })
  })

  it('adds resource_metadata to the RFC 9470 challenge of an authentication-level requirement', async () => {
    const leveled = await listingApp({
      auth: required('bearer'),
      guards: [acrAtLeast('mfa', { levels: ['pwd', 'mfa'] })],
      protectedResource: {
        resource: 'https://api.example/mcp',
        authorizationServers: ['https://id.example'],
      },
    })
    const weak = await rpc(leveled, call('resources/list'), as('member-token'))
    expect(weak.status).toBe(401)
    const challenge = String(weak.headers['www-authenticate'])
    expect(challenge).toMatch(/^Bearer error="insufficient_user_authentication"/)
    expect(challenge).toContain('acr_values="mfa"')
    expect(challenge).toContain(`resource_metadata="${METADATA}"`)
    expect((await rpc(leveled, call('resources/list'), as('admin-token'))).status).toBe(200)
  })

  it('refuses endpoint guards without the security option or with middleware auth', () => {
    expect(() => createMCPEndpoint({ guards: [requiresScope('a')] })).toThrow(
      expect.objectContaining({ code: 'mcp.option_invalid' }),
    )
  })
})

describe('URI schemes compare case-insensitively (RFC 3986)', () => {
  let app: Express

  beforeAll(async () => {
    app = await listingApp()
  })

  it.each([
    ['EXPRESS://status', '{"ok":true}'],
    ['Express://plain', '{"plain":true}'],
    ['EXPRESS://openapi', undefined],
    ['TENANT://acme/report', '{"report":true}'],
  ])('reads %s, keeping the URI as requested', async (uri, text) => {
    const response = await rpc(app, call('resources/read', { uri }), as('admin-token'))
    expect(response.body.result.contents[0].uri).toBe(uri)
    if (text !== undefined) expect(response.body.result.contents[0].text).toBe(text)
  })

  it('still compares the rest of the URI exactly', async () => {
    const response = await rpc(app, call('resources/read', { uri: 'express://STATUS' }), as('admin-token'))
    expect(response.body.error).toEqual({
      code: -32602,
      message: 'Resource not found',
      data: { uri: 'express://STATUS' },
    })
  })
})
