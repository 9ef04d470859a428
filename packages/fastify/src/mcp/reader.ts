import { ServerResponse } from 'node:http'
import type { MCPResourceResponse } from '@portcullis/core/mcp'
import {
  CAPTURING_METHODS,
  capturingResponse,
  Deadlined,
  DeadlineQueue,
  resourceProblem,
  statusOf,
} from '@portcullis/http/in-process'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { InProcessRequest } from '../security/in-process.js'

/** Responses that record instead of writing to a socket (the methods live on the prototype, once). */
class InProcessResponse extends ServerResponse {}
Object.defineProperties(InProcessResponse.prototype, CAPTURING_METHODS)

export interface ReadLimits {
  readonly timeoutMs: number
  readonly maxBytes: number
}

/** One read in flight: settles once, with the route's answer, a 413, a 500 or (on expiry) a 504. */
class ReadOperation extends Deadlined {
  #settled = false
  readonly #resolve: (outcome: MCPResourceResponse) => void
  readonly #deadlines: DeadlineQueue

  constructor(resolve: (outcome: MCPResourceResponse) => void, deadlines: DeadlineQueue) {
    super()
    this.#resolve = resolve
    this.#deadlines = deadlines
  }

  readonly settle = (outcome: MCPResourceResponse): void => {
    if (this.#settled) return
    this.#settled = true
    this.#deadlines.remove(this)
    this.#resolve(outcome)
  }

  expire(): void {
    this.settle(resourceProblem(504, 'Gateway Timeout'))
  }
}

/** Runs `GET path` in-process for `caller`; see `routeReader`. */
export type RouteRead = (caller: FastifyRequest, path: string) => Promise<MCPResourceResponse>

/**
 * Reads that run `GET path` in-process through the application's own router (`fastify.routing`: its
 * hooks, the route's policy and guards, its handler and serializer) with the caller's headers and
 * addresses, and capture status, content type and body. The synthetic request is linked to the caller,
 * so it shares the caller's per-request policy evaluation and no mechanism runs twice. A route that does
 * not answer within `timeoutMs` yields 504, a body over `maxBytes` 413, a throw 500 (never a stack). The
 * reads of one endpoint share one deadline queue (one timer) rather than a timer each.
 */
export function routeReader(fastify: FastifyInstance, limits: ReadLimits): RouteRead {
  const deadlines = new DeadlineQueue(limits.timeoutMs)
  const { maxBytes } = limits
  return (caller, path) =>
    new Promise((resolve) => {
      const operation = new ReadOperation(resolve, deadlines)
      deadlines.add(operation)
      const request = new InProcessRequest(caller, path)
      const response = capturingResponse(new InProcessResponse(request), maxBytes, operation.settle)
      try {
        fastify.routing(request, response)
      } catch (error) {
        operation.settle(resourceProblem(statusOf(error), 'Resource read failed'))
      }
    })
}
