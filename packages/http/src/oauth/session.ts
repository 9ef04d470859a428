import type { SecurityContext } from '@portcullis/core/authorization'
import {
  SECURITY_EPOCH_ATTRIBUTE,
  SESSION_HANDLE_ATTRIBUTE,
  TOKEN_FAMILY_ATTRIBUTE,
} from '@portcullis/core/local-accounts'
import type { LocalSession } from '@portcullis/core/oidc'
import {
  type AuthPolicy,
  type PolicyEvaluator,
  type RequestEvaluation,
  required,
} from '@portcullis/core/policy'
import { HttpProblem, problems } from '../problem/problem.js'

/**
 * The local session a verified security context proves: a user principal whose evidence carries the
 * security epoch and a session handle (the local session mechanism) or a refresh token family (a local
 * access token). Undefined for anonymous callers, services and credentials of other mechanisms.
 */
export function localSessionOf(context: SecurityContext): LocalSession | undefined {
  const principal = context.principal
  if (principal === null || principal.kind !== 'user') return undefined
  for (const item of context.evidence) {
    const attributes = item.attributes ?? {}
    const epoch = attributes[SECURITY_EPOCH_ATTRIBUTE]
    const handle = attributes[SESSION_HANDLE_ATTRIBUTE] ?? attributes[TOKEN_FAMILY_ATTRIBUTE]
    if (typeof epoch === 'number' && typeof handle === 'string' && handle !== '') {
      return Object.freeze({ accountId: principal.id, securityEpoch: epoch, sessionHandle: handle })
    }
  }
  return undefined
}

/** The local session of a route only signed-in callers reach; 401 `authentication.required` without one. */
export function requireLocalSession(context: SecurityContext): LocalSession {
  const session = localSessionOf(context)
  if (session === undefined) throw new HttpProblem(problems.authenticationRequired)
  return session
}

/** What `localSessionReader` needs of a security instance (every adapter's has it). */
export interface EvaluatingSecurity<R> {
  readonly evaluator: PolicyEvaluator
  evaluation(request: R): RequestEvaluation
}

/**
 * `currentSession` for the OAuth routes, wired to the local-accounts mechanisms: evaluates `policy`
 * (default `required()`) against the request's memoized authentication (no mechanism runs twice) and
 * reads the session from its evidence with `localSessionOf`. Nothing presented or a rejected credential
 * is "no session" (the routes answer 401); an unavailable session store is a 503.
 */
export function localSessionReader<R>(
  security: EvaluatingSecurity<R>,
  policy: AuthPolicy = required(),
): (request: R) => Promise<LocalSession | undefined> {
  const compiled = security.evaluator.compile(policy)
  return async (request) => {
    const outcome = await security.evaluation(request).evaluate(compiled)
    if (outcome.kind === 'granted') return localSessionOf(outcome.context)
    if (outcome.code === 'authentication.unavailable') {
      throw new HttpProblem(
        outcome.retryAfterSeconds === undefined
          ? problems.authenticationUnavailable
          : { ...problems.authenticationUnavailable, retryAfterSeconds: outcome.retryAfterSeconds },
      )
    }
    return undefined
  }
}
