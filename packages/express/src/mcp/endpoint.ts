import { ConfigurationError, readOptions } from '@portcullis/core/errors'
import { MCPDispatcher, type MCPResourceRegistry } from '@portcullis/core/mcp'
import { isAuthPolicy } from '@portcullis/core/policy'
import { bodyTooLargeProblem, bodyTooLargeResponse } from '@portcullis/http/body'
import {
  declarationMark,
  declaredRoutes,
  protectedResource,
  type ResourceRoutePath,
  readableBy,
  resolveSetup,
  resourceCacheScope,
  resourceRoute,
  scopesOf,
  TRANSPORT_ERROR,
} from '@portcullis/http/mcp'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { sendProblem } from '../problem/send-problem.js'
import { INNER_ROUTER } from '../routing/secure-router.js'
import { IN_PROCESS_FORM } from '../security/in-process.js'
import { MCP_ENDPOINT_OPTIONS, type MCPEndpoint, type MCPEndpointOptions } from './endpoint-options.js'
import type { LayerLike } from './layer-match.js'
import { decorateChallenges } from './protected-resource.js'
import { buildResources, type ResourceApp } from './setup.js'
import { readBody, refusal, sendResult, sendRpcError } from './transport.js'

interface Attached {
  readonly app: ResourceApp
  readonly ready: Promise<{
    readonly registry: MCPResourceRegistry<ResourceRoutePath>
    readonly dispatcher: MCPDispatcher<ResourceRoutePath, Request>
  }>
}

const ENDPOINT_DOCUMENTATION = {
  summary: 'MCP resources endpoint (JSON-RPC 2.0 over stateless Streamable HTTP)',
  tags: ['mcp'],
  responses: {
    '200': { description: 'A JSON-RPC response.', content: { 'application/json': {} } },
    '202': { description: 'A notification was accepted.' },
    '413': bodyTooLargeResponse(),
  },
}

function middlewareOf(auth: MCPEndpointOptions['auth']): RequestHandler[] {
  if (auth === undefined || isAuthPolicy(auth)) return []
  const list: readonly unknown[] = Array.isArray(auth) ? auth : [auth]
  if (!list.every((handler) => typeof handler === 'function')) {
    throw new ConfigurationError('mcp.option_invalid', 'auth must be a policy or Express middleware')
  }
  return list as RequestHandler[]
}

function positive(value: number | undefined, fallback: number, field: string): number {
  const chosen = value ?? fallback
  if (!(Number.isSafeInteger(chosen) && chosen > 0)) {
    throw new ConfigurationError('mcp.option_invalid', `${field} must be a positive integer`)
  }
  return chosen
}

/**
 * Creates the stateless Streamable HTTP endpoint `POST {path}`: JSON answers, 202 for notifications,
 * 405 with `Allow: POST` for other methods, lenient `Accept`, 400 for an unsupported
 * `MCP-Protocol-Version`, 403 for a foreign `Origin` or `Host`, JSON-RPC errors (never HTML) for bad
 * bodies, and 413 problem+json (`request.body_too_large`) for a body over `maxBodyBytes`. Resource reads run the marked GET route in-process through the
 * application's own pipeline with the caller's credentials.
 */
export function createMCPEndpoint(options: MCPEndpointOptions = {}): MCPEndpoint {
  readOptions(options, 'createMCPEndpoint', MCP_ENDPOINT_OPTIONS)
  const path = options.path ?? '/mcp'
  if (!path.startsWith('/')) throw new ConfigurationError('mcp.option_invalid', 'path must start with "/"')
  const maxBodyBytes = positive(options.maxBodyBytes, 1024 * 1024, 'maxBodyBytes')
  const security = options.security
  const setup = resolveSetup<Request>(
    security === undefined
      ? options
      : {
          openapi: () => security.openapi(),
          ...options,
          routes: () => [...security.routes.list(), ...declaredRoutes(options.routes)],
        },
    'express',
  )
  const resource =
    options.protectedResource === undefined ? undefined : protectedResource(options.protectedResource)
  const policy = isAuthPolicy(options.auth) ? options.auth : undefined
  if (policy !== undefined && security === undefined) {
    throw new ConfigurationError(
      'mcp.option_invalid',
      'an auth policy for the MCP endpoint needs the security option',
    )
  }
  const handlers = middlewareOf(options.auth)
  if (options.guards !== undefined && (security === undefined || handlers.length > 0)) {
    throw new ConfigurationError(
      'mcp.option_invalid',
      'endpoint guards need the security option and an auth policy',
    )
  }
  const scopes = scopesOf(options.guards ?? [])
  // Startup errors at registration: a marked non-GET route or a template/parameter mismatch throws there.
  security?.routes.onRegister((route) => {
    const mark = declarationMark(route)
    if (mark !== undefined) resourceRoute(route.method, route.path, mark)
  })
  let attached: Attached | undefined

  const attach = (app: ResourceApp) => {
    if (attached !== undefined && attached.app !== app) {
      throw new ConfigurationError(
        'mcp.endpoint_attached',
        'this MCP endpoint is already attached to another app',
      )
    }
    if (attached === undefined) {
      const ready = buildResources(app, setup).then(
        ({ registry, openapi, serverInfo, skills, read, runtimes }) => ({
          registry,
          dispatcher: new MCPDispatcher<ResourceRoutePath, Request>({
            registry,
            serverInfo,
            openapi,
            reader: read,
            ...(skills === undefined ? {} : { skills }),
            ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
            ...(options.visible === undefined ? {} : { visible: options.visible }),
            ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
            listing: options.listing ?? 'all',
            readable: readableBy(runtimes, security),
            cacheScope: (resource) => resourceCacheScope(runtimes.get(resource.name)?.declaration),
            sharedCacheScope: endpointIsOpen() ? 'public' : 'private',
            maxBlobBytes: setup.maxResourceBytes,
          }),
        }),
      )
      attached = { app, ready }
    }
    return attached.ready.then(({ registry }) => registry)
  }

  /** 405 for anything but POST, 403 for a foreign Origin or Host; false when it answered. */
  const admit = (request: Request, response: Response): boolean => {
    if (request.method !== 'POST') {
      response.setHeader('Allow', 'POST')
      sendRpcError(response, 405, TRANSPORT_ERROR, 'Method not allowed.')
      return false
    }
    const reason = refusal(request, options)
    if (reason !== undefined) {
      sendRpcError(response, 403, TRANSPORT_ERROR, reason)
      return false
    }
    if (challenges) decorateChallenges(response, resource?.metadataUrl, scopes)
    return true
  }

  const serve = async (request: Request, response: Response) => {
    let state: Awaited<Attached['ready']>
    try {
      state = await (attached?.ready ?? attach(request.app).then(() => (attached as Attached).ready))
    } catch (error) {
      // a lazy attach failed: the configuration is wrong; never render it (or a stack) to the client
      options.onError?.(error, request)
      sendRpcError(response, 500, -32603, 'Internal error')
      return
    }
    const context = {
      context: request,
      ...headerOption('protocolVersion', request.headers['mcp-protocol-version']),
      ...headerOption('mcpMethod', request.headers['mcp-method']),
      ...headerOption('mcpName', request.headers['mcp-name']),
    }
    if (request.readableEnded || (request.complete && !request.readable)) {
      // an upstream body parser consumed the stream: dispatch what it produced
      const parsed: unknown = request.body
      const result =
        typeof parsed === 'string' || Buffer.isBuffer(parsed)
          ? await state.dispatcher.handleText(parsed, context)
          : await state.dispatcher.handle(parsed, context)
      sendResult(request, response, result)
      return
    }
    const body = await readBody(request, maxBodyBytes)
    if (body === undefined) {
      sendProblem(response, bodyTooLargeProblem(maxBodyBytes))
      return
    }
    sendResult(request, response, await state.dispatcher.handleText(body, context))
  }

  let secured: RequestHandler | undefined
  if (security !== undefined && handlers.length === 0) {
    const router = security.router()
    const documentation = {
      ...(policy === undefined ? {} : { auth: policy }),
      ...(options.guards === undefined ? {} : { guards: options.guards }),
      openapi: ENDPOINT_DOCUMENTATION,
    }
    router.post(path, documentation, serve)
    secured = routeLayerOf(router) ?? router
  }

  /** Nobody authenticates at the endpoint: answers every caller gets alike may sit in shared caches. */
  function endpointIsOpen(): boolean {
    if (handlers.length > 0) return false
    if (security === undefined) return true
    const route = security.routes.find('POST', path)
    return route !== undefined && !route.policy.authenticates && !route.policy.excluded
  }
  // an endpoint that refuses nobody needs no challenges on its answers
  const challenges = !endpointIsOpen()

  // A plain middleware rather than a Router: every other request of the app (in-process reads included)
  // costs one string comparison here.
  const endpoint = ((request: Request, response: Response, next: NextFunction) => {
    const requestPath = request.path
    if (resource !== undefined && requestPath === resource.metadataPath && request.method === 'GET') {
      response.setHeader('Cache-Control', 'public, max-age=3600')
      response.setHeader('Access-Control-Allow-Origin', '*')
      response.json(resource.document)
      return
    }
    if (requestPath !== path && requestPath !== `${path}/`) {
      next()
      return
    }
    if (!admit(request, response)) return
    if (secured !== undefined) secured(request, response, next)
    else runChain(handlers, request, response, next, () => serve(request, response).catch(next))
  }) as MCPEndpoint
  // in-process reads (one per resources/read) carry no query string: req.url is the path, no parsing
  const metadataPath = resource?.metadataPath
  const inProcess: RequestHandler = (request, response, next) => {
    const url = request.url
    if (url === path || url === `${path}/` || url === metadataPath) endpoint(request, response, next)
    else next()
  }
  Object.defineProperty(endpoint, IN_PROCESS_FORM, { value: inProcess })
  endpoint.attach = (app) => {
    try {
      return attach(app)
    } catch (error) {
      return Promise.reject(error)
    }
  }
  return endpoint
}

/**
 * The endpoint's own route on its secure router, called directly: the endpoint middleware has already
 * matched the path, so the router's matching would only repeat it.
 */
function routeLayerOf(router: unknown): RequestHandler | undefined {
  const inner = (router as { [INNER_ROUTER]?: { stack?: unknown } })[INNER_ROUTER]
  const layer = Array.isArray(inner?.stack) ? (inner.stack[0] as LayerLike | undefined) : undefined
  if (layer?.route === undefined) return undefined
  return (request, response, next) => layer.handleRequest(request, response, next)
}

/** `{ [key]: header }` for a single-valued header, `{}` when it is absent. */
function headerOption<K extends string>(key: K, value: string | string[] | undefined): { [P in K]?: string } {
  return (typeof value === 'string' ? { [key]: value } : {}) as { [P in K]?: string }
}

/** Runs Express middleware in order, then `last`; an error (or `next('route')`) leaves through `exit`. */
function runChain(
  handlers: readonly RequestHandler[],
  request: Request,
  response: Response,
  exit: NextFunction,
  last: () => void,
): void {
  let index = 0
  const step = (error?: unknown): void => {
    if (error === 'route' || error === 'router') {
      exit()
      return
    }
    if (error !== undefined && error !== null) {
      exit(error)
      return
    }
    const handler = handlers[index]
    index += 1
    if (handler === undefined) {
      last()
      return
    }
    try {
      const result: unknown = handler(request, response, step)
      if (result instanceof Promise) result.catch(step)
    } catch (thrown) {
      step(thrown)
    }
  }
  step()
}
