import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { serve } from '@hono/node-server'
import type { AdapterApp, AdapterScenario } from '@portcullis/conformance/adapters'
import { createFetchSecurity, type FetchRoute, readBody } from '../../src/index.js'

/** The body limit of a route reading JSON when the scenario names none. */
const DEFAULT_BODY_LIMIT = 16_384

/**
 * How the fetch form is served, and how it learns the client's address:
 * - `node:http`: a plain `node:http` server converting each request to a Web `Request`, as a runtime does,
 *   passing `{ socket }` beside it, which the application's `clientAddress` source reads;
 * - `node:http, no address`: the same server calling `fetch(request)` alone, with no source: the form
 *   cannot see the client;
 * - `@hono/node-server`: its `serve`, whose `{ incoming }` env the default source reads.
 */
export type FetchServer = 'node:http' | 'node:http, no address' | '@hono/node-server'

/** The `env` the `node:http` server passes beside each request. */
interface SocketEnv {
  readonly socket: Socket
}

/**
 * Builds the scenario's application with the fetch form, the way a Next.js or Bun user would (every
 * route through `route(...)`, the generated routes as options), and serves its `fetch` over `server`.
 */
export async function fetchApp(
  scenario: AdapterScenario,
  server: FetchServer = 'node:http',
): Promise<AdapterApp> {
  const { oauth, mcp } = scenario
  const portcullis = createFetchSecurity({
    ...scenario.security,
    ...(server === 'node:http'
      ? { clientAddress: (_request: Request, env: unknown) => (env as SocketEnv).socket.remoteAddress }
      : {}),
    ...(scenario.local === undefined ? {} : { local: scenario.local }),
    ...(scenario.accounts === undefined ? {} : { accounts: scenario.accounts }),
    ...(scenario.passkeys === undefined ? {} : { passkeys: scenario.passkeys }),
    ...(scenario.totp === undefined ? {} : { totp: scenario.totp }),
    ...(scenario.accountEmail === undefined ? {} : { accountEmail: scenario.accountEmail }),
    ...(scenario.activity === undefined ? {} : { activity: scenario.activity }),
    ...(scenario.administration === undefined ? {} : { administration: scenario.administration }),
    ...(scenario.impersonation === undefined ? {} : { impersonation: scenario.impersonation }),
    ...(scenario.organizations === undefined ? {} : { organizations: scenario.organizations }),
    ...(scenario.organizationDomains === undefined
      ? {}
      : { organizationDomains: scenario.organizationDomains }),
    ...(scenario.activeOrganization === undefined ? {} : { activeOrganization: scenario.activeOrganization }),
    ...(mcp === undefined
      ? {}
      : {
          mcp: {
            scheme: mcp.scheme,
            ...(mcp.auth === undefined ? {} : { auth: mcp.auth }),
            ...(mcp.listing === undefined ? {} : { listing: mcp.listing }),
            ...(mcp.protectedResource === undefined ? {} : { protectedResource: mcp.protectedResource }),
            ...(mcp.allowedHosts === undefined ? {} : { allowedHosts: mcp.allowedHosts }),
          },
        }),
    ...(oauth === undefined
      ? {}
      : {
          oauth: {
            lifecycle: oauth.lifecycle,
            auth: oauth.auth,
            signIn: async ({ accountId, identity }, c) => {
              const { setCookie, body } = await oauth.signIn(accountId, identity)
              c.header('set-cookie', setCookie, { append: true })
              return body
            },
            ...(oauth.backchannelLogout === undefined ? {} : { backchannelLogout: oauth.backchannelLogout }),
            ...(oauth.events === undefined ? {} : { events: oauth.events }),
          },
        }),
  })
  for (const route of scenario.routes) {
    portcullis.route(route.method, route.path, route.options, async (request, { security, params }) => {
      const limit = scenario.bodyLimit ?? DEFAULT_BODY_LIMIT
      const body = route.readsJson === true ? await readBody(request, limit) : undefined
      if (route.readsJson !== true && route.method !== 'GET' && scenario.bodyLimit !== undefined)
        await readBody(request, scenario.bodyLimit)
      const headers: Record<string, string> =
        route.cacheControl === undefined ? {} : { 'cache-control': route.cacheControl }
      return Response.json(route.respond({ security, params, body }), { headers })
    })
  }
  if (server === '@hono/node-server') return serveWithNodeServer(portcullis.fetch)
  return serveFetch(portcullis.fetch, server === 'node:http')
}

/** Serves a fetch handler with `@hono/node-server` on a free loopback port. */
function serveWithNodeServer(fetch: FetchRoute): Promise<AdapterApp> {
  return new Promise((resolve) => {
    const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            ;(server as Server).closeAllConnections()
            server.close(() => done())
          }),
      })
    })
  })
}

/**
 * Serves a fetch handler over `node:http` on a free loopback port, converting requests and responses;
 * `withSocket` passes `{ socket }` beside each request.
 */
export function serveFetch(fetch: FetchRoute, withSocket = true): Promise<AdapterApp> {
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = []
    for await (const chunk of incoming) chunks.push(chunk as Buffer)
    const headers = new Headers()
    for (let index = 0; index + 1 < incoming.rawHeaders.length; index += 2) {
      headers.append(incoming.rawHeaders[index] as string, incoming.rawHeaders[index + 1] as string)
    }
    const method = incoming.method ?? 'GET'
    const body = method === 'GET' || method === 'HEAD' ? null : Buffer.concat(chunks)
    const request = new Request(`http://${incoming.headers.host}${incoming.url}`, { method, headers, body })
    const env: SocketEnv = { socket: incoming.socket }
    const response = await (withSocket ? fetch(request, env) : fetch(request))
    const cookies = response.headers.getSetCookie()
    const plain: Record<string, string | string[]> = {}
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') plain[name] = value
    })
    if (cookies.length > 0) plain['set-cookie'] = cookies
    outgoing.writeHead(response.status, plain)
    outgoing.end(Buffer.from(await response.arrayBuffer()))
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          }),
      })
    })
  })
}
