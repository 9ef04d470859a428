import { required, requiresScope } from '@portcullis/core'
import { ConfigurationError } from '@portcullis/core/errors'
import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createSecurity } from '../src/security/create-security.js'
import { alice, staticBearer } from './support/mechanisms.js'

function security(routeOptions?: readonly string[]) {
  return createSecurity({
    mechanisms: [staticBearer({ t: { principal: alice } })],
    ...(routeOptions === undefined ? {} : { routeOptions }),
  })
}

function refusal(register: () => unknown): ConfigurationError | undefined {
  try {
    register()
  } catch (error) {
    if (error instanceof ConfigurationError) return error
    throw error
  }
  return undefined
}

describe('route options are checked at registration', () => {
  it('a misspelt key (gaurds) is refused with the route and a suggestion, and nothing is registered', () => {
    const secured = security()
    const router = secured.router({ prefix: '/api' })
    const error = refusal(() =>
      router.get('/admin', { auth: required(), gaurds: [requiresScope('admin')] } as never, (_q, r) =>
        r.send('secret'),
      ),
    )
    expect(error?.code).toBe('configuration.unknown_option')
    expect(error?.option).toBe('route GET /api/admin.gaurds')
    expect(error?.message).toContain('did you mean guards?')
    expect(secured.routes.list()).toEqual([])
  })

  it('accepts the built-in keys, including the MCP route option form', () => {
    const secured = security()
    const router = secured.router()
    router.get(
      '/plans',
      {
        auth: required(),
        guards: [requiresScope('plans')],
        openapi: { summary: 'Plans' },
        mcpResource: 'plans',
        mcpResourceMimeType: 'application/json',
        mcpResourceDescription: 'The plans',
        mcpResourceTitle: 'Plans',
      },
      (_request, response) => response.json([]),
    )
    expect(secured.routes.list().map((route) => route.path)).toEqual(['/plans'])
  })

  it('accepts keys the application declares with routeOptions, and still refuses others', async () => {
    const secured = security(['auditCategory'])
    const router = secured.router()
    router.get('/audited', { auditCategory: 'billing' } as never, (_request, response) => response.send('ok'))
    expect(
      refusal(() => router.get('/x', { auditCategory: 'x', cache: 1 } as never, () => undefined))?.option,
    ).toBe('route GET /x.cache')
    const app = express()
    app.use(secured.middleware)
    app.use(router)
    expect((await request(app).get('/audited').set('authorization', 'Bearer t')).text).toBe('ok')
  })

  it('refuses a routeOptions list that is not an array of names', () => {
    for (const routeOptions of ['auditCategory', [''], [1]]) {
      const error = refusal(() => security(routeOptions as never))
      expect(error?.code).toBe('configuration.invalid_option')
      expect(error?.option).toMatch(/^createSecurity\.routeOptions/)
    }
  })

  it('options after a handler are refused with route_not_secured naming the route, nothing registered', () => {
    const secured = security()
    const router = secured.router({ prefix: '/api' })
    const handler = () => undefined
    const error = refusal(() => router.get('/early', handler, { auth: required() } as never))
    expect(error?.code).toBe('configuration.route_not_secured')
    expect(error?.option).toBe('route GET /api/early')
    expect(error?.message).toContain('route options (auth) after a handler would never be applied')
    expect(secured.routes.list()).toEqual([])
  })
})

describe('route options where Portcullis never sees them are never served without their policy', () => {
  it("Express itself refuses options on the application's own route method: the route is never served", async () => {
    const secured = security()
    const app = express()
    app.use(secured.middleware)
    let runs = 0
    const handler = (_request: unknown, response: { send(body: string): void }) => {
      runs += 1
      response.send('served')
    }
    expect(() => app.get('/early', { auth: required() } as never, handler as never)).toThrow(TypeError)
    expect(() => express.Router().get('/early', { auth: required() } as never, handler as never)).toThrow(
      TypeError,
    )
    const answer = await request(app).get('/early').set('authorization', 'Bearer t')
    expect(answer.status).toBe(404)
    expect(answer.text).not.toContain('served')
    expect(runs).toBe(0)
  })
})
