import type { SecurityContext } from '@portcullis/core/authorization'
import type { Instrumentation } from '@portcullis/core/instrumentation'
import type { PolicyOutcome } from '@portcullis/core/policy'

/** What a decision is recorded from, of the route and of its outcome (structural: no import circle). */
interface DecidedRoute {
  readonly method: string
  readonly path: string
  readonly policy: { readonly authenticates: boolean }
}
type Decided =
  | { readonly granted: true }
  | { readonly granted: false; readonly problem: { readonly code: string; readonly status: number } }

/** The mechanisms that verified a granted request, `anonymous` for a route that reads no credential. */
function grantedMechanism(context: SecurityContext, route: DecidedRoute): string {
  const evidence = context.evidence
  if (evidence.length === 1) return evidence[0]?.mechanism ?? 'none'
  if (evidence.length > 1) return evidence.map((entry) => entry.mechanism).join('+')
  return route.policy.authenticates ? 'none' : 'anonymous'
}

/**
 * The mechanism a policy refusal names: the prefix of its internal reason (`api-key: revoked`) when it is
 * a registered mechanism's name, otherwise `none`. Only the name is kept, never the rest of the reason.
 */
function refusedMechanism(reason: string, mechanisms: ReadonlySet<string>): string {
  const colon = reason.indexOf(':')
  if (colon <= 0) return 'none'
  const name = reason.slice(0, colon)
  return mechanisms.has(name) ? name : 'none'
}

/**
 * Reports one route decision: a decision (span) with the mechanism, the outcome and the problem code, and
 * a refusal (counter) by code when refused. A throwing instrumentation never changes the response.
 */
export function recordDecision(
  instrumentation: Instrumentation,
  mechanisms: ReadonlySet<string>,
  route: DecidedRoute,
  policy: PolicyOutcome,
  decided: Decided,
  startedAt: number,
  durationMs: number,
): void {
  const mechanism =
    policy.kind === 'granted'
      ? grantedMechanism(policy.context, route)
      : refusedMechanism(policy.reason, mechanisms)
  const code = decided.granted ? undefined : decided.problem.code
  const outcome = decided.granted ? 'granted' : decided.problem.status === 503 ? 'unavailable' : 'refused'
  try {
    instrumentation.decision({
      mechanism,
      outcome,
      code,
      method: route.method,
      route: route.path,
      startedAt,
      durationMs,
    })
    if (code !== undefined) instrumentation.refusal(code)
  } catch {
    // Instrumentation must not change what Portcullis answers.
  }
}
