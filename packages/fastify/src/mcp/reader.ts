import { ServerResponse } from 'node:http'
import type { MCPResourceResponse } from '@portcullis/core/mcp'
import { CAPTURING_METHODS, capturingResponse, resourceProblem, statusOf } from '@portcullis/http/in-process'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { InProcessRequest } from '../security/in-process.js'

/** Responses that record instead of writing to a socket (the methods live on the prototype, once). */
class InProcessResponse extends ServerResponse {}
Object.defineProperties(InProcessResponse.prototype, CAPTURING_METHODS)

export interface ReadLimits {
  readonly timeoutMs: number
  readonly maxBytes: number
}

/**
 * Runs `GET path` in-process through the application's own router (`fastify.routing`: its hooks, the
 * route's policy and guards, its handler and serializer) with the caller's headers and addresses, and
 * captures status, content type and body. The synthetic request is linked to the caller, so it shares
 * the caller's per-request policy evaluation and no mechanism runs twice. A route that does not answer
 * within `timeoutMs` yields 504, a body over `maxBytes` 413, a throw 500 (never a stack).
 */
export function routeRead(
  fastify: FastifyInstance,
  caller: FastifyRequest,
  path: string,
  limits: ReadLimits,
): Promise<MCPResourceResponse> {
  return new Promise((resolve) => {
    let settled = false
    const settle = (outcome: MCPResourceResponse) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const timer = setTimeout(() => settle(resourceProblem(504, 'Gateway Timeout')), limits.timeoutMs)
    const request = new InProcessRequest(caller, path)
    const response = capturingResponse(new InProcessResponse(request), limits.maxBytes, settle)
    try {
      fastify.routing(request, response)
    } catch (error) {
      settle(resourceProblem(statusOf(error), 'Resource read failed'))
    }
  })
}
