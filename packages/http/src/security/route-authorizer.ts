import type {
  GuardDecision,
  GuardPipeline,
  RouteParameters,
  SecurityContext,
} from '@portcullis/core/authorization'
import type { Instrumentation } from '@portcullis/core/instrumentation'
import type { CompiledPolicy, PolicyOutcome, RequestEvaluation } from '@portcullis/core/policy'
import type { StepUpCookies } from '../cookies/cookies.js'
import { type ProblemInit, problems } from '../problem/problem.js'
import type { RejectionEvent } from './config.js'
import { recordDecision } from './decision-instrumentation.js'
import { dpopProblem } from './dpop-challenge.js'
import { insufficientUserAuthentication, isBearerRequest } from './user-authentication-challenge.js'

/** What every secured route shares from the security instance. */
export interface RouteRuntime {
  readonly noStoreAuthenticated: boolean
  readonly stepUpHeader: string
  /** Per-purpose step-up cookies read when the header is absent; undefined: header only. */
  readonly stepUpCookies: StepUpCookies | undefined
  /** Names of the registered bearer mechanisms (RFC 9470 challenges go to their clients). */
  readonly bearerMechanisms: ReadonlySet<string>
  /** Called after a guard consumed a step-up credential (emits `step_up.consumed`). */
  readonly onStepUpConsumed: ((context: SecurityContext, purpose: string) => void) | undefined
  readonly onRejection: ((event: RejectionEvent) => void) | undefined
  /** Receives every decision and refusal; undefined: nothing is timed or recorded. */
  readonly instrumentation?: Instrumentation | undefined
  /** Names of every registered mechanism (a refusal's mechanism attribute is one of them or `none`). */
  readonly mechanismNames?: ReadonlySet<string> | undefined
}

export interface RouteSecurity {
  readonly method: string
  readonly path: string
  readonly policy: CompiledPolicy
  readonly guards: GuardPipeline
  /** `WWW-Authenticate` challenge for 401s, when the route accepts a bearer mechanism. */
  readonly challenge: string | undefined
}

/** What the authorizer reads from the request besides its evaluation. */
export interface RouteRequest {
  /** The parsed path parameters of the route. */
  readonly params: RouteParameters
  /** A header (lower-case name), duplicates joined with `, `; only read for a step-up route. */
  header(name: string): string | undefined
  /** The `Cookie` header; only read for a step-up route. */
  readonly cookieHeader: string | undefined
}

/**
 * The decision for one request on a secured route. Granted: the context the handler sees, and whether
 * the answer must be `Cache-Control: no-store`. Rejected: the problem to answer with (its headers carry
 * the `WWW-Authenticate` challenge). Either may carry `Set-Cookie` values (a spent step-up cookie).
 */
export type RouteOutcome =
  | {
      readonly granted: true
      readonly context: SecurityContext
      readonly noStore: boolean
      readonly setCookie: string | undefined
    }
  | { readonly granted: false; readonly problem: ProblemInit; readonly setCookie: string | undefined }

function policyRejection(outcome: Extract<PolicyOutcome, { kind: 'rejected' }>): ProblemInit {
  if (outcome.code === 'authentication.required') {
    return outcome.challenge === undefined ? problems.authenticationRequired : dpopProblem(outcome.challenge)
  }
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
  problem: ProblemInit,
  reason: string,
  setCookie: string | undefined,
  bearerChallenge?: string,
): RouteOutcome {
  const own = problem.headers?.['WWW-Authenticate']
  const wwwAuthenticate = problem.status === 401 ? (bearerChallenge ?? own ?? route.challenge) : undefined
  try {
    runtime.onRejection?.({
      status: problem.status,
      code: problem.code,
      reason,
      method: route.method,
      route: route.path,
    })
  } catch {
    // Observers must not change the response.
  }
  return {
    granted: false,
    problem:
      wwwAuthenticate === undefined
        ? problem
        : { ...problem, headers: { ...problem.headers, 'WWW-Authenticate': wwwAuthenticate } },
    setCookie,
  }
}

/** Decides a request on a secured route; synchronous whenever evaluation and guards are. */
/** Whether the instrumentation records anything now; one that throws counts as recording. */
function recordingNow(instrumentation: Instrumentation): boolean {
  try {
    return instrumentation.recording?.() !== false
  } catch {
    return true
  }
}

export type RouteAuthorizer = (
  evaluation: RequestEvaluation,
  request: RouteRequest,
) => RouteOutcome | Promise<RouteOutcome>

/**
 * The decision Portcullis makes in front of a secured route's handlers, for any framework: evaluates the
 * route policy (memoized per request), then the guards (the step-up guard last, once), and reports every
 * refusal to `onRejection`. When the evaluation and the guards settle synchronously (no credential I/O),
 * so does the decision, and the adapter can run the handler in the same turn.
 */
export function routeAuthorizer(runtime: RouteRuntime, route: RouteSecurity): RouteAuthorizer {
  const guarded = route.guards.guards.length > 0 || route.guards.stepUp !== undefined
  const stepUpPurpose = route.guards.stepUp?.purpose

  const authorize = (
    request: RouteRequest,
    context: SecurityContext,
    noStore: boolean,
  ): RouteOutcome | Promise<RouteOutcome> => {
    let stepUpToken: string | undefined
    let fromCookie = false
    if (stepUpPurpose !== undefined) {
      stepUpToken = request.header(runtime.stepUpHeader)
      const cookies = runtime.stepUpCookies
      if (stepUpToken === undefined && cookies !== undefined) {
        const read = cookies.read(request.cookieHeader, stepUpPurpose)
        fromCookie = read.kind !== 'absent'
        if (read.kind === 'present') stepUpToken = read.value
      }
    }
    const decided = (decision: GuardDecision, attempted: boolean): RouteOutcome => {
      // A presented cookie credential is spent (or useless) once tried: the browser forgets it. An
      // unavailable step-up store may not have taken it, so the cookie stays for a retry.
      const spent = decision.granted ? attempted : decision.denial === 'step-up-required'
      const setCookie =
        fromCookie && spent && runtime.stepUpCookies !== undefined && stepUpPurpose !== undefined
          ? runtime.stepUpCookies.clear(stepUpPurpose)
          : undefined
      if (!decision.granted) {
        const bearer = challengeOf(runtime, decision, context)
        return reject(runtime, route, guardRejection(decision), decision.code, setCookie, bearer)
      }
      if (attempted && stepUpPurpose !== undefined) runtime.onStepUpConsumed?.(context, stepUpPurpose)
      return { granted: true, context, noStore, setCookie }
    }
    const decision = route.guards.authorize({ ...context, params: request.params }, stepUpToken)
    return decision instanceof Promise
      ? decision.then((settled) => decided(settled, true))
      : decided(decision, false)
  }

  const proceed = (request: RouteRequest, outcome: PolicyOutcome): RouteOutcome | Promise<RouteOutcome> => {
    if (outcome.kind === 'rejected') {
      return reject(runtime, route, policyRejection(outcome), outcome.reason, undefined)
    }
    const context = outcome.context
    const noStore = runtime.noStoreAuthenticated && context.principal !== null
    if (guarded) return authorize(request, context, noStore)
    return { granted: true, context, noStore, setCookie: undefined }
  }

  const unobserved: RouteAuthorizer = (evaluation, request) => {
    const outcome = evaluation.evaluate(route.policy)
    return outcome instanceof Promise
      ? outcome.then((settled) => proceed(request, settled))
      : proceed(request, outcome)
  }
  const instrumentation = runtime.instrumentation
  if (instrumentation === undefined) return unobserved
  const mechanisms = runtime.mechanismNames ?? new Set<string>()
  return (evaluation, request) => {
    // nothing behind the instrumentation now (no SDK registered): the request pays for nothing
    if (!recordingNow(instrumentation)) return unobserved(evaluation, request)
    const startedAt = Date.now()
    const start = performance.now()
    const finish = (policy: PolicyOutcome, decided: RouteOutcome): RouteOutcome => {
      recordDecision(
        instrumentation,
        mechanisms,
        route,
        policy,
        decided,
        startedAt,
        performance.now() - start,
      )
      return decided
    }
    const observed = (policy: PolicyOutcome): RouteOutcome | Promise<RouteOutcome> => {
      const decided = proceed(request, policy)
      return decided instanceof Promise
        ? decided.then((settled) => finish(policy, settled))
        : finish(policy, decided)
    }
    const outcome = evaluation.evaluate(route.policy)
    return outcome instanceof Promise ? outcome.then(observed) : observed(outcome)
  }
}
