import { anonymousContext } from '@portcullis/core/authorization'
import type { RequestEvaluation } from '@portcullis/core/policy'
import type { RouteAuthorizer, RouteOutcome, RouteRequest } from '@portcullis/http/security'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { sendProblem } from '../problem/send-problem.js'
import { singleHeader } from './credential-source.js'

/** The neutral route request over an Express request (read only by step-up routes). */
class ExpressRouteRequest implements RouteRequest {
  readonly #request: Request
  constructor(request: Request) {
    this.#request = request
  }
  get params() {
    return this.#request.params as RouteRequest['params']
  }
  header(name: string): string | undefined {
    return singleHeader(this.#request, name)
  }
  get cookieHeader(): string | undefined {
    return this.#request.headers.cookie
  }
}

function apply(request: Request, response: Response, next: NextFunction, outcome: RouteOutcome): void {
  if (outcome.setCookie !== undefined) response.append('Set-Cookie', outcome.setCookie)
  if (!outcome.granted) {
    sendProblem(response, outcome.problem)
    return
  }
  request.security = outcome.context
  if (outcome.noStore) response.setHeader('Cache-Control', 'no-store')
  next()
}

/** Sets the anonymous context and continues: public and excluded routes do no credential work. */
export const anonymousRoute: RequestHandler = (request, _response, next) => {
  request.security = anonymousContext
  next()
}

/**
 * The middleware Portcullis puts in front of a secured route's handlers: the neutral route decision
 * (policy memoized per request, then the guards), applied to the Express response. When the decision
 * settles synchronously (no credential I/O), the handlers run in the same turn.
 */
export function routeGuardMiddleware(
  evaluationOf: (request: Request) => RequestEvaluation,
  authorize: RouteAuthorizer,
): RequestHandler {
  return (request, response, next) => {
    const outcome = authorize(evaluationOf(request), new ExpressRouteRequest(request))
    if (outcome instanceof Promise)
      outcome.then((settled) => apply(request, response, next, settled)).catch(next)
    else apply(request, response, next, outcome)
  }
}
