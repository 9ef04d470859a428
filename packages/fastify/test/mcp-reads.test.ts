import { Readable } from 'node:stream'
import { authenticated, none } from '@portcullis/core/authentication'
import { anonymous, required } from '@portcullis/core/policy'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpEndpoint, portcullis } from '../src/index.js'

const apps: FastifyInstance[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()))
})

interface Options {
  readonly readTimeoutMs?: number
  readonly maxResourceBytes?: number
  readonly maxBodyBytes?: number
}

/** An app with a counting bearer mechanism, the endpoint, and `routes` added before it is ready. */
async function start(routes: (app: FastifyInstance) => void, options: Options = {}) {
  let authentications = 0
  const app = Fastify()
  apps.push(app)
  await app.register(portcullis, {
    mechanisms: [
      {
        name: 'bearer',
        securityScheme: { type: 'http', scheme: 'bearer' },
        authenticate: (source) => {
          authentications += 1
          return source.header('authorization') === 'Bearer alice'
            ? authenticated(
                { id: 'alice', kind: 'user' },
                { mechanism: 'bearer', credentialType: 'bearer-token' },
              )
            : none()
        },
      },
    ],
  })
  mcpEndpoint(app, { auth: anonymous(), ...options })
  routes(app)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const read = async (uri: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri } }),
    })
    expect(response.status).toBe(200)
    return (await response.json()) as {
      result?: { contents: { text?: string; mimeType: string }[] }
      error?: { code: number; data?: { statusCode?: number; content?: unknown } }
    }
  }
  return { app, url, read, authentications: () => authentications }
}

describe('MCP resource reads on Fastify', () => {
  it("runs the route's policy first, then the app's and the route's own hooks, with the caller's credentials", async () => {
    const order: string[] = []
    const { read, url, authentications } = await start((app) => {
      app.addHook('onRequest', async (request) => {
        if (request.url === '/profile') order.push(`app onRequest ${request.security.principal?.id}`)
      })
      app.addHook('preHandler', async (request) => {
        if (request.url === '/profile') order.push('app preHandler')
      })
      app.get(
        '/profile',
        {
          config: { auth: required('bearer'), mcpResource: 'profile' },
          onRequest: async (request) => {
            order.push(`route onRequest ${request.security.principal?.id}`)
          },
          preHandler: async () => {
            order.push('route preHandler')
          },
        },
        async (request) => ({ user: request.security.principal?.id }),
      )
    })
    const answer = await read('fastify://profile', { authorization: 'Bearer alice' })
    expect(JSON.parse(answer.result?.contents[0]?.text ?? '{}')).toEqual({ user: 'alice' })
    // the app-wide onRequest runs before the route's own hooks (Fastify's order), the policy first of those
    expect(order).toEqual([
      'app onRequest undefined',
      'route onRequest alice',
      'app preHandler',
      'route preHandler',
    ])
    // one authentication for the MCP request and its read together
    expect(authentications()).toBe(1)
    // exactly what a direct GET of the route runs
    const inProcess = order.splice(0)
    const direct = await fetch(`${url}/profile`, { headers: { authorization: 'Bearer alice' } })
    expect(await direct.json()).toEqual({ user: 'alice' })
    expect(order).toEqual(inProcess)

    const refused = await read('fastify://profile')
    expect(refused.error?.code).toBe(-32603)
    expect(refused.error?.data?.statusCode).toBe(401)
  })

  it("captures what an async onSend hook and the route's serializer make of the payload", async () => {
    const { read } = await start((app) => {
      app.get(
        '/doc',
        {
          config: { auth: anonymous(), mcpResource: 'doc' },
          schema: {
            response: { 200: { type: 'object', properties: { kept: { type: 'string' } } } },
          },
          onSend: async (_request, reply, payload) => {
            await new Promise((resolve) => setTimeout(resolve, 5))
            reply.header('content-type', 'application/vnd.example+json')
            return `${payload as string}\n`
          },
        },
        async () => ({ kept: 'yes', dropped: 'by the response schema' }),
      )
    })
    const answer = await read('fastify://doc')
    expect(answer.result?.contents[0]).toMatchObject({
      mimeType: 'application/vnd.example+json',
      text: '{"kept":"yes"}\n',
    })
  })

  it('answers a route that throws as a 500 read failure without the message or a stack', async () => {
    const { read } = await start((app) => {
      app.get('/broken', { config: { auth: anonymous(), mcpResource: 'broken' } }, async () => {
        throw new Error('secret internals at /srv/app.js:12')
      })
    })
    const answer = await read('fastify://broken')
    expect(answer.error?.code).toBe(-32603)
    expect(answer.error?.data?.statusCode).toBe(500)
    expect(JSON.stringify(answer)).not.toContain('secret internals')
    expect(JSON.stringify(answer)).not.toContain('app.js')
  })

  it('captures a streamed body, chunk by chunk', async () => {
    const { read } = await start((app) => {
      app.get(
        '/stream',
        { config: { auth: anonymous(), mcpResource: 'stream' } },
        async (_request, reply) => {
          reply.type('text/plain')
          return reply.send(Readable.from(['one ', 'two ', 'three']))
        },
      )
    })
    const answer = await read('fastify://stream')
    expect(answer.result?.contents[0]).toMatchObject({ mimeType: 'text/plain', text: 'one two three' })
  })

  it('answers 504 for a route that never answers, and later reads still work', async () => {
    let stalled = 0
    const { read } = await start(
      (app) => {
        app.get('/stall', { config: { auth: anonymous(), mcpResource: 'stall' } }, () => {
          stalled += 1
          return new Promise(() => {})
        })
        app.get('/quick', { config: { auth: anonymous(), mcpResource: 'quick' } }, async () => 'fast')
      },
      { readTimeoutMs: 50 },
    )
    const started = performance.now()
    const [first, second, quick] = await Promise.all([
      read('fastify://stall'),
      read('fastify://stall'),
      read('fastify://quick'),
    ])
    expect(performance.now() - started).toBeGreaterThanOrEqual(49)
    for (const answer of [first, second]) {
      expect(answer.error?.code).toBe(-32603)
      expect(answer.error?.data?.statusCode).toBe(504)
    }
    expect(quick.result?.contents[0]?.text).toBe('fast')
    expect(stalled).toBe(2)
    const again = await read('fastify://stall')
    expect(again.error?.data?.statusCode).toBe(504)
  })

  it('answers 413 for a body over maxResourceBytes', async () => {
    const { read } = await start(
      (app) => {
        app.get('/big', { config: { auth: anonymous(), mcpResource: 'big' } }, async (_request, reply) =>
          reply.type('text/plain').send('x'.repeat(2048)),
        )
        app.get('/small', { config: { auth: anonymous(), mcpResource: 'small' } }, async (_request, reply) =>
          reply.type('text/plain').send('x'.repeat(1024)),
        )
      },
      { maxResourceBytes: 1024 },
    )
    expect((await read('fastify://big')).error?.data?.statusCode).toBe(413)
    expect((await read('fastify://small')).result?.contents[0]?.text).toHaveLength(1024)
  })

  it("gives the route the caller's headers minus the transport ones, in all three header views", async () => {
    const { read } = await start((app) => {
      app.get('/headers', { config: { auth: anonymous(), mcpResource: 'headers' } }, async (request) => ({
        headers: request.headers,
        raw: request.raw.rawHeaders,
        distinct: request.raw.headersDistinct,
        ip: request.ip,
      }))
    })
    const answer = await read('fastify://headers', { 'x-trace': 'abc', 'mcp-protocol-version': '2025-11-25' })
    const seen = JSON.parse(answer.result?.contents[0]?.text ?? '{}')
    expect(seen.headers).toMatchObject({ accept: '*/*', 'x-trace': 'abc' })
    expect(seen.headers).not.toHaveProperty('content-type')
    expect(seen.headers).not.toHaveProperty('mcp-protocol-version')
    expect(seen.raw.slice(0, 2)).toEqual(['accept', '*/*'])
    expect(seen.raw).toContain('x-trace')
    expect(seen.raw).not.toContain('content-length')
    expect(seen.distinct).toMatchObject({ accept: ['*/*'], 'x-trace': ['abc'] })
    expect(seen.distinct).not.toHaveProperty('mcp-protocol-version')
    expect(seen.ip).toBe('127.0.0.1')
  })

  it('takes the body as bytes whatever its media type, JSON or not, and refuses one over maxBodyBytes', async () => {
    const { url } = await start(
      (app) => {
        app.get('/plain', { config: { auth: anonymous(), mcpResource: 'plain' } }, async () => 'ok')
      },
      { maxBodyBytes: 256 },
    )
    const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
    for (const type of ['application/json', 'application/json; charset=utf-8', 'text/plain']) {
      const response = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': type, accept: 'application/json' },
        body: message,
      })
      expect(response.status, type).toBe(200)
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
    }
    for (const type of ['application/json', 'text/plain']) {
      const response = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': type, accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(300) } }),
      })
      expect(response.status, type).toBe(413)
      expect(response.headers.get('content-type')).toContain('application/problem+json')
      expect(((await response.json()) as { code?: string }).code).toBe('request.body_too_large')
    }
  })
})
