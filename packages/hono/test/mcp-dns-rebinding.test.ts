// The middleware form's MCP endpoint against DNS rebinding where it cannot see its own address: a runtime
// that hands the app a bare Request (Bun, Deno, Workers, `app.request`) has no socket, so the loopback
// check cannot tell a rebound page (`Host: rebind.example` reaching 127.0.0.1) from a real client. Without
// `allowedHosts` the endpoint fails closed there; on @hono/node-server it still sees the socket.
import { type ServerType, serve } from '@hono/node-server'
import { call } from '@portcullis/conformance/adapters'
import { anonymous } from '@portcullis/core/policy'
import { Hono } from 'hono'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createSecurity,
  type HonoSecurityOptions,
  type MCPEndpointOptions,
  mcpEndpoint,
} from '../src/index.js'

const UNCHECKABLE =
  'Host not allowed: this server cannot see the address it was reached on, so it needs allowedHosts'

function build(endpoint: MCPEndpointOptions = {}, security: Partial<HonoSecurityOptions> = {}): Hono {
  const portcullis = createSecurity({ mechanisms: [], ...security })
  const app = new Hono()
  app.use(portcullis.middleware)
  app.onError(portcullis.onError)
  mcpEndpoint(app, portcullis, { auth: anonymous(), scheme: 'app', ...endpoint })
  app.get('/plans', portcullis.route({ auth: anonymous(), mcpResource: 'plans' }), (c) => c.json([]))
  portcullis.ready(app)
  return app
}

const ping = (host: string, extra: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { host, 'content-type': 'application/json', accept: 'application/json', ...extra },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
})

/** Status and JSON-RPC error message of an answer. */
async function outcome(response: Response): Promise<{ status: number; message: string | undefined }> {
  const body = (await response.json()) as { error?: { message?: string } }
  return { status: response.status, message: body.error?.message }
}

describe('without a socket (app.request, Bun, Deno, Workers)', () => {
  it('refuses Host: rebind.example, and every other Host, without allowedHosts', async () => {
    const app = build()
    for (const host of [
      'rebind.example',
      'rebind.example:3000',
      'localhost',
      '127.0.0.1:3000',
      '[::1]:3000',
    ]) {
      expect({ host, ...(await outcome(await app.request('/mcp', ping(host)))) }).toEqual({
        host,
        status: 403,
        message: UNCHECKABLE,
      })
    }
  })

  it('is not talked out of it by a forwarded address: the default source reads only a socket', async () => {
    const app = build()
    const answer = await app.request('/mcp', ping('localhost', { 'x-forwarded-for': '127.0.0.1' }))
    expect(await outcome(answer)).toEqual({ status: 403, message: UNCHECKABLE })
  })

  it('serves the Hosts of allowedHosts and refuses any other', async () => {
    const app = build({ allowedHosts: ['app.example'] })
    expect((await app.request('/mcp', ping('app.example'))).status).toBe(200)
    expect((await app.request('/mcp', ping('app.example:8443'))).status).toBe(200)
    expect(await outcome(await app.request('/mcp', ping('rebind.example')))).toEqual({
      status: 403,
      message: 'Host not allowed',
    })
  })

  it('never asks the client-address source when allowedHosts decides', async () => {
    let asked = 0
    const app = build(
      { allowedHosts: ['app.example'] },
      {
        clientAddress: () => {
          asked += 1
          throw new Error('not on this runtime')
        },
      },
    )
    expect((await app.request('/mcp', ping('app.example'))).status).toBe(200)
    expect(asked).toBe(0)
  })

  // Bun hands its server beside the request; `server.requestIP(request)` is the socket's peer.
  interface BunServer {
    requestIP(request: Request): { address: string } | null
  }
  const bunLike = (address: string | undefined): BunServer => ({
    requestIP: () => (address === undefined ? null : { address }),
  })
  const fromBun: Partial<HonoSecurityOptions> = {
    clientAddress: (c) => (c.env as BunServer).requestIP(c.req.raw)?.address,
  }

  it('with a client-address source naming a loopback client, runs the loopback check', async () => {
    const app = build({}, fromBun)
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const env = bunLike(address)
      expect((await app.request('/mcp', ping('localhost:3000'), env)).status).toBe(200)
      expect((await app.request('/mcp', ping('127.0.0.1:3000'), env)).status).toBe(200)
      expect(await outcome(await app.request('/mcp', ping('rebind.example:3000'), env))).toEqual({
        status: 403,
        message: 'Host not allowed',
      })
    }
  })

  it('refuses a client the source names by another address, or cannot name, without allowedHosts', async () => {
    const app = build({}, fromBun)
    for (const address of ['203.0.113.7', '2001:db8::1', '10.0.0.2', undefined]) {
      const answer = await app.request('/mcp', ping('localhost:3000'), bunLike(address))
      expect({ address, ...(await outcome(answer)) }).toEqual({ address, status: 403, message: UNCHECKABLE })
    }
  })

  it('still refuses a foreign Origin with allowedHosts', async () => {
    const app = build({ allowedHosts: ['app.example'] })
    const answer = await app.request('/mcp', ping('app.example', { origin: 'https://rebind.example' }))
    expect(await outcome(answer)).toEqual({ status: 403, message: 'Origin not allowed' })
  })
})

describe('on @hono/node-server (a socket)', () => {
  let server: ServerType | undefined
  afterEach(async () => {
    ;(server as { closeAllConnections?: () => void } | undefined)?.closeAllConnections?.()
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())))
    server = undefined
  })

  const listen = (app: Hono) =>
    new Promise<number>((resolve) => {
      server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(info.port))
    })

  it('serves loopback Hosts without allowedHosts and refuses Host: rebind.example by its loopback check', async () => {
    const port = await listen(build())
    // node:http sends the Host header as given (fetch would put the URL's own)
    const post = async (host: string) => {
      const init = ping(host)
      const answer = await call(`http://127.0.0.1:${port}`, '/mcp', {
        method: 'POST',
        headers: init.headers as Record<string, string>,
        body: init.body as string,
      })
      return {
        status: answer.status,
        message: (answer.json() as { error?: { message?: string } }).error?.message,
      }
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      expect({ host, ...(await post(host)) }).toEqual({ host, status: 200, message: undefined })
    }
    for (const host of ['rebind.example', `rebind.example:${port}`, `127.0.0.1.rebind.example:${port}`]) {
      expect({ host, ...(await post(host)) }).toEqual({ host, status: 403, message: 'Host not allowed' })
    }
  })

  it('reads a resource through the endpoint (the in-process read has no socket and needs none)', async () => {
    const port = await listen(build())
    const answer = await fetch(`http://127.0.0.1:${port}/mcp`, {
      ...ping(`localhost:${port}`),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'resources/read',
        params: { uri: 'app://plans' },
      }),
    })
    expect(answer.status).toBe(200)
    const body = (await answer.json()) as { result?: { contents?: { text?: string }[] } }
    expect(body.result?.contents?.[0]?.text).toBe('[]')
  })
})
