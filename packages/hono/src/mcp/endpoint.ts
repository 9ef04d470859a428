import { readOptions } from '@portcullis/core/errors'
import type { MCPDispatchOptions } from '@portcullis/core/mcp'
import { exclude } from '@portcullis/core/policy'
import { bodyTooLargeProblem, bodyTooLargeResponse } from '@portcullis/http/body'
import {
  type BuiltEndpoint,
  endpointChallenges,
  type MCPAnswer,
  originRefusal,
  ROUTE_ENDPOINT_OPTIONS,
  resultAnswer,
  routeEndpoint,
  rpcErrorAnswer,
  TRANSPORT_ERROR,
} from '@portcullis/http/mcp'
import { inProcessRequest, problemResponse, readThroughFetch, readWebBody } from '@portcullis/http/web'
import type { Context } from 'hono'
import { keptBody } from '../node-server/kept-response.js'
import type { HonoSecurity } from '../security/create-security.js'
import type { AnyHono } from '../security/types.js'
import type { MCPEndpointOptions } from './options.js'

const DOCUMENTATION = {
  summary: 'MCP resources endpoint (JSON-RPC 2.0 over stateless Streamable HTTP)',
  tags: ['mcp'],
  responses: {
    '200': { description: 'A JSON-RPC response.', content: { 'application/json': {} } },
    '202': { description: 'A notification was accepted.' },
    '413': bodyTooLargeResponse(),
  },
}

function answer(c: Context, mcp: MCPAnswer): Response {
  for (const [name, value] of Object.entries(mcp.headers)) c.header(name, value)
  const status = mcp.status as 200
  return mcp.body === undefined
    ? c.body(null, status)
    : c.body(
        new Uint8Array(mcp.body.buffer, mcp.body.byteOffset, mcp.body.byteLength) as Uint8Array<ArrayBuffer>,
        status,
      )
}

/** The socket `@hono/node-server` passes in `c.env.incoming`; other runtimes pass none. */
function socketOf(c: Context): { readonly localAddress?: string } | undefined {
  return (c.env as { incoming?: { socket?: { localAddress?: string } } } | undefined)?.incoming?.socket
}

/** The dispatch options of a request: its context and the MCP transport headers it sent. */
function dispatchOptions(c: Context): MCPDispatchOptions<Context> {
  const options: { -readonly [K in keyof MCPDispatchOptions<Context>]: MCPDispatchOptions<Context>[K] } = {
    context: c,
  }
  const protocolVersion = c.req.header('mcp-protocol-version')
  if (protocolVersion !== undefined) options.protocolVersion = protocolVersion
  const mcpMethod = c.req.header('mcp-method')
  if (mcpMethod !== undefined) options.mcpMethod = mcpMethod
  const mcpName = c.req.header('mcp-name')
  if (mcpName !== undefined) options.mcpName = mcpName
  return options
}

/**
 * Adds the stateless Streamable HTTP endpoint `POST {path}` (a Portcullis route with its `auth` policy
 * and `guards`; declare it before `security.ready(app)`): both protocol eras of the core dispatcher, 202
 * for notifications, 405 with `Allow: POST` for other methods, 403 for a foreign `Origin` or `Host` (and,
 * on a runtime without a socket and no `allowedHosts`, for any client but a loopback one), 413
 * problem+json for a body over `maxBodyBytes`, RFC 9728 metadata and challenges. Routes marked with
 * `mcpResource` are published; each read runs the marked route in-process through the app's own fetch
 * handler (`app.fetch`: its middleware, the route's policy and guards, its handler) with the caller's
 * headers and evaluation, and no socket.
 */
export function mcpEndpoint(app: AnyHono, security: HonoSecurity, options: MCPEndpointOptions = {}): void {
  readOptions(options, 'mcpEndpoint', ROUTE_ENDPOINT_OPTIONS)
  const endpoint = routeEndpoint<Context>(security, options, 'hono')
  const { path, maxBodyBytes, resource, scopes } = endpoint

  // Built on the first request, once `ready(app)` compiled every route.
  let built: Promise<BuiltEndpoint<Context>> | undefined
  // once built, read without awaiting it again
  let ready: BuiltEndpoint<Context> | undefined
  const build = () =>
    endpoint.build(
      (limits) => (entry, params, c) =>
        readThroughFetch(
          (request) => app.fetch(request, c.env),
          inProcessRequest(c.req.raw, entry.target.build(params)),
          limits,
          keptBody,
        ),
    )

  // Without a socket (Bun, Deno, Workers, `app.request`) the endpoint cannot see it was reached on a
  // loopback address: only `allowedHosts`, or a loopback client address from `clientAddress`, lets a
  // request through (DNS rebinding fails closed).
  const refused = (c: Context): string | undefined => {
    const socket = socketOf(c)
    return originRefusal(
      {
        host: c.req.header('host'),
        origin: c.req.header('origin'),
        localAddress: socket?.localAddress,
        trustProxy: false,
        // the client-address source is asked only when its answer can matter
        ...(socket === undefined && options.allowedHosts === undefined
          ? { socketless: { peerAddress: security.requestInfo(c).peerAddress } }
          : {}),
      },
      options,
    )
  }

  // Origin and Host first: a foreign page never reaches authentication.
  app.post(path, async (c, next) => {
    const reason = refused(c)
    if (reason !== undefined) return answer(c, rpcErrorAnswer(403, TRANSPORT_ERROR, reason))
    await next()
    // only refusals carry challenges: other answers' headers are never touched
    const { status } = c.res
    if ((status !== 401 && status !== 403) || (ready ?? (await built))?.open === true) return
    const existing = c.res.headers.get('www-authenticate')
    const values = endpointChallenges(
      status,
      existing === null ? [] : [existing],
      resource?.metadataUrl,
      scopes,
    )
    if (values === undefined) return
    c.res.headers.delete('www-authenticate')
    for (const value of values) c.res.headers.append('www-authenticate', value)
  })
  app.post(
    path,
    security.route({
      ...(options.auth === undefined ? {} : { auth: options.auth }),
      ...(options.guards === undefined ? {} : { guards: options.guards }),
      openapi: DOCUMENTATION,
    }),
    async (c) => {
      if (ready === undefined) {
        built ??= build()
        ready = await built
      }
      const { dispatcher } = ready
      const body = await readWebBody(c.req.raw, maxBodyBytes)
      if (body === undefined) return problemResponse(bodyTooLargeProblem(maxBodyBytes))
      security.shareEvaluation(c)
      const result = await dispatcher.handleText(body, dispatchOptions(c))
      return answer(c, resultAnswer(result, c.req.header('accept')))
    },
  )
  app.on(['GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'], path, security.route({ auth: exclude() }), (c) => {
    c.header('allow', 'POST')
    return answer(c, rpcErrorAnswer(405, TRANSPORT_ERROR, 'Method not allowed.'))
  })
  if (resource !== undefined) {
    app.get(resource.metadataPath, security.route({ auth: exclude() }), (c) => {
      c.header('cache-control', 'public, max-age=3600')
      c.header('access-control-allow-origin', '*')
      return c.json(resource.document)
    })
  }
}
