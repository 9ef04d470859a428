import type { IncomingMessage } from 'node:http'
import { SyntheticRequest } from '@portcullis/http/in-process'
import type { FastifyRequest } from 'fastify'

/**
 * An in-process request (an MCP resource read) and the request it is made for. Only Portcullis constructs
 * these objects: nothing a client sends can link a request to another one. A field checked with
 * `instanceof` costs every request less than a `WeakMap` lookup (and every read less than an insert).
 */
export class InProcessRequest extends SyntheticRequest {
  declare readonly parent: FastifyRequest

  constructor(parent: FastifyRequest, path: string) {
    super(parent.raw, path)
    this.parent = parent
  }
}

/** The request an in-process request is made for, if it is one. */
export function inProcessParentOf(request: FastifyRequest): FastifyRequest | undefined {
  const raw: IncomingMessage = request.raw
  return raw instanceof InProcessRequest ? raw.parent : undefined
}
