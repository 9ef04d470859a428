import type { IncomingMessage } from 'node:http'
import type { FastifyRequest } from 'fastify'

/**
 * In-process requests (MCP resource reads) and the requests they are made for. Keyed by the synthetic
 * request object itself: nothing a client sends can link a request to another one.
 */
const parents = new WeakMap<IncomingMessage, FastifyRequest>()

/** Links an in-process request to the request it is made for: it will share that request's evaluation. */
export function linkToParent(request: IncomingMessage, parent: FastifyRequest): void {
  parents.set(request, parent)
}

/** The request an in-process request is made for, if it is one. */
export function inProcessParentOf(request: FastifyRequest): FastifyRequest | undefined {
  return parents.get(request.raw)
}
