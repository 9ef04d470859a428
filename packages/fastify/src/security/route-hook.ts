import type { RouteParameters } from '@portcullis/core/authorization'
import type { RequestEvaluation } from '@portcullis/core/policy'
import {
  type RouteAuthorizer,
  type RouteOutcome,
  type RouteRequest,
  rawHeader,
} from '@portcullis/http/security'
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify'
import { sendProblem } from '../problem/send-problem.js'

/** The neutral route request over a Fastify request (read only by step-up routes). */
class FastifyRouteRequest implements RouteRequest {
  readonly #request: FastifyRequest
  constructor(request: FastifyRequest) {
    this.#request = request
  }
  get params(): RouteParameters {
    return this.#request.params as RouteParameters
  }
  header(name: string): string | undefined {
    return rawHeader(this.#request.raw.rawHeaders, name)
  }
  get cookieHeader(): string | undefined {
    return this.#request.headers.cookie
  }
}

function apply(
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
  outcome: RouteOutcome,
): void {
  if (outcome.setCookie !== undefined) reply.header('set-cookie', outcome.setCookie)
  if (!outcome.granted) {
    sendProblem(reply, outcome.problem)
    return
  }
  request.security = outcome.context
  if (outcome.noStore) reply.header('cache-control', 'no-store')
  done()
}

/**
 * The `onRequest` hook Portcullis puts first on a secured route: the neutral route decision (policy
 * memoized per request, then the guards). A refusal answers at once (no body is read, no handler runs);
 * a decision that settles synchronously (no credential I/O) continues in the same turn.
 */
export function routeHook(
  evaluationOf: (request: FastifyRequest) => RequestEvaluation,
  authorize: RouteAuthorizer,
): onRequestHookHandler {
  return (request, reply, done) => {
    const outcome = authorize(evaluationOf(request), new FastifyRouteRequest(request))
    if (outcome instanceof Promise) {
      outcome.then((settled) => apply(request, reply, done, settled), done)
    } else apply(request, reply, done, outcome)
  }
}
