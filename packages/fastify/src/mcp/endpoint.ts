import { readOptions } from '@portcullis/core/errors'
import type { MCPDispatcher } from '@portcullis/core/mcp'
import { exclude } from '@portcullis/core/policy'
import { bodyTooLargeProblem, bodyTooLargeResponse } from '@portcullis/http/body'
import {
  endpointChallenges,
  type MCPAnswer,
  originRefusal,
  type ResourceRoutePath,
  ROUTE_ENDPOINT_OPTIONS,
  type RouteEndpointOptions,
  resultAnswer,
  routeEndpoint,
  rpcErrorAnswer,
  TRANSPORT_ERROR,
} from '@portcullis/http/mcp'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { sendProblem } from '../problem/send-problem.js'
import { routeReader } from './reader.js'

/** The options of `mcpEndpoint`: publishing, origin policy, the endpoint's own policy, guards and limits. */
export interface MCPEndpointOptions extends RouteEndpointOptions<FastifyRequest> {}

const DOCUMENTATION = {
  summary: 'MCP resources endpoint (JSON-RPC 2.0 over stateless Streamable HTTP)',
  tags: ['mcp'],
  responses: {
    '200': { description: 'A JSON-RPC response.', content: { 'application/json': {} } },
    '202': { description: 'A notification was accepted.' },
    '413': bodyTooLargeResponse(),
  },
}

function send(reply: FastifyReply, answer: MCPAnswer): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).send(answer.body)
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  return typeof value === 'string' ? value : undefined
}

/**
 * Adds the stateless Streamable HTTP endpoint `POST {path}` (register the `portcullis` plugin first: the
 * endpoint is a Portcullis route with its `auth` policy and `guards`): both protocol eras of the core
 * dispatcher, 202 for notifications, 405 with `Allow: POST` for other methods, 403 for a foreign `Origin`
 * or `Host`, 413 problem+json (`request.body_too_large`) for a body over `maxBodyBytes`, RFC 9728 metadata and challenges. Routes marked with
 * `config: { mcpResource }` or the `mcpResource(...)` wrapper are published; marking mistakes throw where
 * the route is declared, the resources are built when the app is ready, and each read runs the marked
 * route in-process through Fastify's router (its own hooks, policy and guards), with the caller's credentials.
 */
export function mcpEndpoint(fastify: FastifyInstance, options: MCPEndpointOptions = {}): void {
  readOptions(options, 'mcpEndpoint', ROUTE_ENDPOINT_OPTIONS)
  const security = fastify.portcullis
  const endpoint = routeEndpoint<FastifyRequest>(security, options, 'fastify')
  const { path, maxBodyBytes, resource, scopes } = endpoint

  let dispatcher: MCPDispatcher<ResourceRoutePath, FastifyRequest> | undefined
  // Nobody authenticates at the endpoint: its answers need no challenges and may sit in shared caches.
  let open = false
  fastify.addHook('onReady', async () => {
    const built = await endpoint.build((limits) => {
      const read = routeReader(fastify, limits)
      return (entry, params, request) => read(request, entry.target.build(params))
    })
    dispatcher = built.dispatcher
    open = built.open
  })

  const refused = (request: FastifyRequest): string | undefined =>
    originRefusal(
      {
        host: request.headers.host,
        origin: headerOf(request, 'origin'),
        localAddress: request.raw.socket?.localAddress,
        // Fastify defines `ips` only on the requests of an instance that trusts a proxy
        trustProxy: request.ips !== undefined,
      },
      options,
    )

  fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    const bytes = { parseAs: 'buffer', bodyLimit: maxBodyBytes } as const
    const keep = (_request: FastifyRequest, body: Buffer, done: (error: null, body: Buffer) => void) =>
      done(null, body)
    // every media type reaches the dispatcher as bytes; JSON by name too, so Fastify finds its parser in
    // its cache instead of parsing the Content-Type header of every request to fall back to the catch-all
    scope.addContentTypeParser('application/json', bytes, keep)
    scope.addContentTypeParser('*', bytes, keep)
    scope.route({
      method: 'POST',
      url: path,
      bodyLimit: maxBodyBytes,
      config: {
        ...(options.auth === undefined ? {} : { auth: options.auth }),
        ...(options.guards === undefined ? {} : { guards: options.guards }),
        openapi: DOCUMENTATION,
      },
      // Origin and Host first: a foreign page never reaches authentication.
      onRequest: (request, reply, done) => {
        const reason = refused(request)
        if (reason === undefined) done()
        else send(reply, rpcErrorAnswer(403, TRANSPORT_ERROR, reason))
      },
      onSend: (_request, reply, payload, done) => {
        if (open) return done(null, payload)
        const existing = reply.getHeader('www-authenticate')
        const values = endpointChallenges(
          reply.statusCode,
          existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)],
          resource?.metadataUrl,
          scopes,
        )
        if (values !== undefined) reply.header('www-authenticate', values.length === 1 ? values[0] : values)
        done(null, payload)
      },
      errorHandler: (error, _request, reply) => {
        if ((error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
          return sendProblem(reply, bodyTooLargeProblem(maxBodyBytes))
        }
        throw error
      },
      handler: async (request, reply) => {
        if (dispatcher === undefined) return send(reply, rpcErrorAnswer(500, -32603, 'Internal error'))
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
        const result = await dispatcher.handleText(body, {
          context: request,
          ...optional('protocolVersion', headerOf(request, 'mcp-protocol-version')),
          ...optional('mcpMethod', headerOf(request, 'mcp-method')),
          ...optional('mcpName', headerOf(request, 'mcp-name')),
        })
        return send(reply, resultAnswer(result, request.headers.accept))
      },
    })
  })
  fastify.route({
    method: ['GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'],
    url: path,
    config: { auth: exclude() },
    handler: async (_request, reply) => {
      reply.header('allow', 'POST')
      return send(reply, rpcErrorAnswer(405, TRANSPORT_ERROR, 'Method not allowed.'))
    },
  })
  if (resource !== undefined) {
    fastify.get(resource.metadataPath, { config: { auth: exclude() } }, async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=3600')
        .header('access-control-allow-origin', '*')
        .send(resource.document),
    )
  }
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string }
}
