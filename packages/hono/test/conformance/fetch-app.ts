import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AdapterApp, AdapterScenario } from '@portcullis/conformance/adapters'
import { createFetchSecurity, type FetchRoute, readBody } from '../../src/index.js'

/** The body limit of a route reading JSON when the scenario names none. */
const DEFAULT_BODY_LIMIT = 16_384

/**
 * Builds the scenario's application with the fetch form, the way a Next.js or Bun user would (every
 * route through `route(...)`, the generated routes as options), and serves its `fetch` over a plain
 * `node:http` server that converts each request to a Web `Request`, as a runtime does.
 */
export async function fetchApp(scenario: AdapterScenario): Promise<AdapterApp> {
  const { oauth, mcp } = scenario
  const portcullis = createFetchSecurity({
    ...scenario.security,
    ...(scenario.local === undefined ? {} : { local: scenario.local }),
    ...(scenario.accounts === undefined ? {} : { accounts: scenario.accounts }),
    ...(scenario.passkeys === undefined ? {} : { passkeys: scenario.passkeys }),
    ...(scenario.totp === undefined ? {} : { totp: scenario.totp }),
    ...(mcp === undefined
      ? {}
      : {
          mcp: {
            scheme: mcp.scheme,
            ...(mcp.auth === undefined ? {} : { auth: mcp.auth }),
            ...(mcp.listing === undefined ? {} : { listing: mcp.listing }),
            ...(mcp.protectedResource === undefined ? {} : { protectedResource: mcp.protectedResource }),
          },
        }),
    ...(oauth === undefined
      ? {}
      : {
          oauth: {
            lifecycle: oauth.lifecycle,
            auth: oauth.auth,
            signIn: ({ accountId }, c) => {
              const { setCookie, body } = oauth.signIn(accountId)
              c.header('set-cookie', setCookie, { append: true })
              return body
            },
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
  return serveFetch(portcullis.fetch)
}

/** Serves a fetch handler over `node:http` on a free loopback port, converting requests and responses. */
export function serveFetch(fetch: FetchRoute): Promise<AdapterApp> {
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = []
    for await (const chunk of incoming) chunks.push(chunk as Buffer)
    const headers = new Headers()
    for (let index = 0; index + 1 < incoming.rawHeaders.length; index += 2) {
      headers.append(incoming.rawHeaders[index] as string, incoming.rawHeaders[index + 1] as string)
    }
    const method = incoming.method ?? 'GET'
    const body = method === 'GET' || method === 'HEAD' ? null : Buffer.concat(chunks)
    const response = await fetch(
      new Request(`http://${incoming.headers.host}${incoming.url}`, { method, headers, body }),
    )
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
