import {
  anonymousContext,
  type GuardDecision,
  type GuardPipeline,
  type RouteParameters,
  type SecurityContext,
} from '@portcullis/core/authorization'
import type { CompiledPolicy, PolicyOutcome, RequestEvaluation } from '@portcullis/core/policy'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { type ProblemInit, problems, sendProblem } from '../problem/problem.js'
import type { RejectionEvent } from './config.js'
import { singleHeader } from './credential-source.js'

/** What every secured route shares from `createSecurity`. */
export interface RouteRuntime {
  evaluationOf(request: Request): RequestEvaluation
  readonly noStoreAuthenticated: boolean
  readonly stepUpHeader: string
  readonly onRejection: ((event: RejectionEvent) => void) | undefined
}

export interface RouteSecurity {
  readonly method: string
  readonly path: string
  readonly policy: CompiledPolicy
  readonly guards: GuardPipeline
  /** `WWW-Authenticate` challenge for 401s, when the route accepts a bearer mechanism. */
  readonly challenge: string | undefined
}

type Rejection = { readonly problem: ProblemInit; readonly reason: string }

function policyRejection(outcome: Extract<PolicyOutcome, { kind: 'rejected' }>): ProblemInit {
  if (outcome.code === 'authentication.required') return problems.authenticationRequired
  return outcome.retryAfterSeconds === undefined
    ? problems.authenticationUnavailable
    : { ...problems.authenticationUnavailable, retryAfterSeconds: outcome.retryAfterSeconds }
}

function guardRejection(decision: Extract<GuardDecision, { granted: false }>): ProblemInit {
  switch (decision.denial) {
    case 'unauthenticated':
      return problems.authenticationRequired
    case 'forbidden':
      return problems.permissionDenied
    case 'step-up-required':
      return problems.stepUpRequired
    case 'unavailable':
      return decision.retryAfterSeconds === undefined
        ? problems.stepUpUnavailable
        : { ...problems.stepUpUnavailable, retryAfterSeconds: decision.retryAfterSeconds }
  }
}

function reject(runtime: RouteRuntime, route: RouteSecurity, response: Response, rejection: Rejection): void {
  const { problem } = rejection
  const challenge = problem.status === 401 && route.challenge !== undefined
  sendProblem(
    response,
    challenge ? { ...problem, headers: { 'WWW-Authenticate': route.challenge ?? '' } } : problem,
  )
  try {
    runtime.onRejection?.({
      status: problem.status,
      code: problem.code,
      reason: rejection.reason,
      method: route.method,
      route: route.path,
    })
  } catch {
    // Observers must not change the response.
  }
}

/** Sets the anonymous context and continues: public and excluded routes do no credential work. */
export const anonymousRoute: RequestHandler = (request, _response, next) => {
  request.security = anonymousContext
  next()
}

/**
 * The middleware Portcullis puts in front of a secured route's handlers: evaluates the route policy
 * (memoized per request), exposes the context on `request.security`, marks authenticated responses
 * `no-store`, then runs the guards (the step-up guard last, once). When the evaluation and the guards
 * settle synchronously (no credential I/O), the handlers run in the same turn.
 */
export function routeGuardMiddleware(runtime: RouteRuntime, route: RouteSecurity): RequestHandler {
  const guarded = route.guards.guards.length > 0 || route.guards.stepUp !== undefined

  const authorize = (request: Request, response: Response, next: NextFunction, context: SecurityContext) => {
    const stepUpToken =
      route.guards.stepUp === undefined ? undefined : singleHeader(request, runtime.stepUpHeader)
    const params = request.params as RouteParameters
    const decided = (decision: GuardDecision) => {
      if (!decision.granted) {
        reject(runtime, route, response, { problem: guardRejection(decision), reason: decision.code })
        return
      }
      next()
    }
    const decision = route.guards.authorize({ ...context, params }, stepUpToken)
    if (decision instanceof Promise) decision.then(decided).catch(next)
    else decided(decision)
  }

  const proceed = (request: Request, response: Response, next: NextFunction, outcome: PolicyOutcome) => {
    if (outcome.kind === 'rejected') {
      reject(runtime, route, response, { problem: policyRejection(outcome), reason: outcome.reason })
      return
    }
    const context = outcome.context
    request.security = context
    if (runtime.noStoreAuthenticated && context.principal !== null)
      response.setHeader('Cache-Control', 'no-store')
    if (guarded) authorize(request, response, next, context)
    else next()
  }

  return (request, response, next) => {
    const outcome = runtime.evaluationOf(request).evaluate(route.policy)
    if (outcome instanceof Promise) {
      outcome.then((settled) => proceed(request, response, next, settled)).catch(next)
    } else {
      proceed(request, response, next, outcome)
    }
  }
}
