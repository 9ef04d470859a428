import {
  anonymousContext,
  type GuardDecision,
  type GuardPipeline,
  type RouteParameters,
  type SecurityContext,
} from '@portcullis/core/authorization'
import type { CompiledPolicy, PolicyOutcome, RequestEvaluation } from '@portcullis/core/policy'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import type { StepUpCookies } from '../oauth/cookies.js'
import { type ProblemInit, problems, sendProblem } from '../problem/problem.js'
import type { RejectionEvent } from './config.js'
import { singleHeader } from './credential-source.js'
import { insufficientUserAuthentication, isBearerRequest } from './user-authentication-challenge.js'

/** What every secured route shares from `createSecurity`. */
export interface RouteRuntime {
  evaluationOf(request: Request): RequestEvaluation
  readonly noStoreAuthenticated: boolean
  readonly stepUpHeader: string
  /** Per-purpose step-up cookies read when the header is absent; undefined: header only. */
  readonly stepUpCookies: StepUpCookies | undefined
  /** Names of the registered bearer mechanisms (RFC 9470 challenges go to their clients). */
  readonly bearerMechanisms: ReadonlySet<string>
  /** Called after a guard consumed a step-up credential (emits `step_up.consumed`). */
  readonly onStepUpConsumed: ((context: SecurityContext, purpose: string) => void) | undefined
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
    case 'insufficient-user-authentication':
      return problems.insufficientUserAuthentication
    case 'unavailable':
      return decision.retryAfterSeconds === undefined
        ? problems.stepUpUnavailable
        : { ...problems.stepUpUnavailable, retryAfterSeconds: decision.retryAfterSeconds }
  }
}

/** The RFC 9470 challenge for a bearer-authenticated request refused for weak or old authentication. */
function challengeOf(
  runtime: RouteRuntime,
  decision: Extract<GuardDecision, { granted: false }>,
  context: SecurityContext,
): string | undefined {
  if (decision.denial !== 'insufficient-user-authentication' && decision.denial !== 'step-up-required') {
    return undefined
  }
  if (!isBearerRequest(context, runtime.bearerMechanisms)) return undefined
  return insufficientUserAuthentication(decision.challenge)
}

function reject(
  runtime: RouteRuntime,
  route: RouteSecurity,
  response: Response,
  rejection: Rejection,
  bearerChallenge?: string,
): void {
  const { problem } = rejection
  const wwwAuthenticate = problem.status === 401 ? (bearerChallenge ?? route.challenge) : undefined
  sendProblem(
    response,
    wwwAuthenticate === undefined
      ? problem
      : { ...problem, headers: { 'WWW-Authenticate': wwwAuthenticate } },
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

  const stepUpPurpose = route.guards.stepUp?.purpose
  const authorize = (request: Request, response: Response, next: NextFunction, context: SecurityContext) => {
    let stepUpToken: string | undefined
    let fromCookie = false
    if (stepUpPurpose !== undefined) {
      stepUpToken = singleHeader(request, runtime.stepUpHeader)
      const cookies = runtime.stepUpCookies
      if (stepUpToken === undefined && cookies !== undefined) {
        const read = cookies.read(request.headers.cookie, stepUpPurpose)
        fromCookie = read.kind !== 'absent'
        if (read.kind === 'present') stepUpToken = read.value
      }
    }
    const params = request.params as RouteParameters
    const decided = (decision: GuardDecision, attempted: boolean) => {
      // A presented cookie credential is spent (or useless) once tried: the browser forgets it. An
      // unavailable step-up store may not have taken it, so the cookie stays for a retry.
      const spent = decision.granted ? attempted : decision.denial === 'step-up-required'
      if (fromCookie && spent && runtime.stepUpCookies !== undefined && stepUpPurpose !== undefined) {
        response.append('Set-Cookie', runtime.stepUpCookies.clear(stepUpPurpose))
      }
      if (!decision.granted) {
        const problem = guardRejection(decision)
        const bearer = challengeOf(runtime, decision, context)
        reject(runtime, route, response, { problem, reason: decision.code }, bearer)
        return
      }
      if (attempted && stepUpPurpose !== undefined) runtime.onStepUpConsumed?.(context, stepUpPurpose)
      next()
    }
    const decision = route.guards.authorize({ ...context, params }, stepUpToken)
    if (decision instanceof Promise) decision.then((settled) => decided(settled, true)).catch(next)
    else decided(decision, false)
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
