import { authenticated, none } from '@portcullis/core/authentication'
import { requiresScope } from '@portcullis/core/authorization'
import { ConfigurationError } from '@portcullis/core/errors'
import { anonymous, optional, required } from '@portcullis/core/policy'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { mcpEndpoint, mcpResource, portcullis } from '../src/index.js'

async function appWith(listing: 'all' | 'readable' = 'all') {
  const app = Fastify()
  await app.register(portcullis, {
    mechanisms: [
      {
        name: 'bearer',
        securityScheme: { type: 'http', scheme: 'bearer' },
        authenticate: (source) =>
          source.header('authorization') === 'Bearer admin'
            ? authenticated(
                { id: 'admin', kind: 'user' },
                { mechanism: 'bearer', credentialType: 'bearer-token' },
              )
            : none(),
      },
    ],
    authorizationResolver: ({ principal }) => ({ scopes: principal.id === 'admin' ? ['admin'] : [] }),
  })
  mcpEndpoint(app, { auth: optional(required()), listing })
  return app
}

const list = (app: Awaited<ReturnType<typeof appWith>>, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list' }),
  })

describe('the Fastify MCP endpoint', () => {
  it('refuses a mark on a POST route where the route is declared', async () => {
    const app = await appWith()
    expect(() =>
      app.post('/jobs', { config: { auth: anonymous(), mcpResource: 'jobs' } }, async () => 'x'),
    ).toThrow(expect.objectContaining({ code: 'mcp.route_not_get' }))
  })

  it('refuses a non-template mark on a route with path parameters', async () => {
    const app = await appWith()
    expect(() =>
      app.get('/items/:id', { config: { auth: anonymous(), mcpResource: 'item' } }, async () => 'x'),
    ).toThrow(ConfigurationError)
  })

  it('publishes wrapper-form marks like route-option marks, in registration order', async () => {
    const app = await appWith()
    app.get('/a', { config: { auth: anonymous(), mcpResource: 'a' } }, async () => 'a')
    app.get(
      '/b',
      { config: { auth: anonymous() } },
      mcpResource('b', { mimeType: 'text/plain' })(async () => 'b'),
    )
    await app.ready()
    const uris = (await list(app)).json().result.resources.map((resource: { uri: string }) => resource.uri)
    expect(uris).toEqual(['fastify://openapi', 'fastify://a', 'fastify://b'])
  })

  it("listing 'readable' leaves out what the caller's policy and guards would refuse, without running it", async () => {
    const app = await appWith('readable')
    let runs = 0
    app.get('/admin', { config: { guards: [requiresScope('admin')], mcpResource: 'admin' } }, async () => {
      runs += 1
      return 'secret'
    })
    await app.ready()
    const names = async (headers?: Record<string, string>) =>
      (await list(app, headers)).json().result.resources.map((resource: { name: string }) => resource.name)
    expect(await names()).not.toContain('admin')
    expect(await names({ authorization: 'Bearer admin' })).toContain('admin')
    expect(runs).toBe(0)
  })
})
