import type { Principal } from '@portcullis/core/authentication'
import { requiresTenantRole } from '@portcullis/core/authorization'
import { ConfigurationError } from '@portcullis/core/errors'
import { anonymous, optional, required } from '@portcullis/core/policy'
import express from 'express'
import request from 'supertest'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createSecurity, type RegisteredRoute } from '../src/index.js'
import { alice, staticBearer } from './support/mechanisms.js'

function security() {
  return createSecurity({ mechanisms: [staticBearer({ t: { principal: alice } })] })
}

describe('route registry', () => {
  it('records method, full path, documented paths, parameters, options, policy, guards and handlers', () => {
    const instance = security()
    const handler = (_req: express.Request, res: express.Response) => {
      res.end()
    }
    const guard = requiresTenantRole({ roles: ['viewer'] })
    instance.router({ prefix: '/api' }).get('/tenants/:tenantId/files/*path', { guards: [guard] }, handler)
    const [route] = instance.routes.list()
    expect(route).toMatchObject({
      method: 'GET',
      path: '/api/tenants/:tenantId/files/*path',
      openapiPaths: ['/api/tenants/{tenantId}/files/{path}'],
      parameters: ['tenantId', 'path'],
      options: { guards: [guard] },
      handlers: [handler],
    })
    expect(route?.policy.alternatives).toEqual([['bearer']])
    expect(route?.guards.guards).toEqual([guard])
    expect(instance.routes.find('GET', '/api/tenants/:tenantId/files/*path')).toBe(route)
    expect(instance.routes.find('POST', '/api/tenants/:tenantId/files/*path')).toBeUndefined()
  })

  it('lets an extension see every route and reject one at registration (a startup error)', async () => {
    const instance = security()
    const router = instance.router()
    const handler = (_req: express.Request, res: express.Response) => {
      res.send('reached')
    }
    router.get('/before', { auth: anonymous() }, handler)
    const seen: RegisteredRoute[] = []
    const stop = instance.routes.onRegister((route) => {
      seen.push(route)
      const extra = (route.options as { mcpResource?: unknown }).mcpResource
      if (extra !== undefined && typeof extra !== 'string') {
        throw new ConfigurationError('mcp.invalid_resource', 'mcpResource must be a name')
      }
    })
    router.get('/after', { auth: anonymous(), mcpResource: 'after' } as never, handler)
    expect(() => router.get('/rejected', { auth: anonymous(), mcpResource: 42 } as never, handler)).toThrow(
      ConfigurationError,
    )
    expect(seen.map((route) => route.path)).toEqual(['/before', '/after', '/rejected'])
    expect(instance.routes.list().map((route) => route.path)).toEqual(['/before', '/after'])
    const app = express().use(router)
    expect((await request(app).get('/rejected')).status).toBe(404)
    stop()
    router.get('/later', { auth: anonymous() }, handler)
    expect(seen).toHaveLength(3)
  })

  it('types the security context from the route policy', () => {
    const router = security().router()
    router.get('/required', { auth: required() }, (req, res) => {
      expectTypeOf(req.security.principal).toEqualTypeOf<Principal>()
      res.end()
    })
    router.get('/optional', { auth: optional(required()) }, (req, res) => {
      expectTypeOf(req.security.principal).toEqualTypeOf<Principal | null>()
      res.end()
    })
    router.get('/default', (req, res) => {
      expectTypeOf(req.security.principal).toEqualTypeOf<Principal | null>()
      res.end()
    })
    expect(true).toBe(true)
  })

  it('keeps nested Express middleware working and evaluates the policy once per request', async () => {
    const bearer = staticBearer({ t: { principal: alice } })
    const instance = createSecurity({ mechanisms: [bearer] })
    const router = instance.router()
    router.get(
      '/chain',
      { auth: required() },
      (_req, _res, next) => next(),
      (req, res) => {
        res.json({ id: req.security.principal.id })
      },
    )
    const response = await request(express().use(router)).get('/chain').set('Authorization', 'Bearer t')
    expect(response.body).toEqual({ id: 'alice' })
    expect(bearer.calls).toBe(1)
  })
})
