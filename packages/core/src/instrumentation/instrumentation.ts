// The instrumentation port: what Portcullis reports about its own decisions for metrics and traces.
// Core only calls it; `@portcullis/opentelemetry` implements it on the OpenTelemetry API. Every value it
// is given is secret-free by construction: mechanism names, outcomes, stable problem codes, limiter names.

/** How one authentication decision ended. */
export type DecisionOutcome = 'granted' | 'refused' | 'unavailable'

/** One authentication decision in front of a secured route (policy, then guards). */
export interface AuthenticationDecision {
  /**
   * The mechanisms that verified the request (`session`, `api-key`, several joined with `+`), the
   * mechanism a refusal names, `anonymous` for a route that reads no credential, or `none`.
   */
  readonly mechanism: string
  readonly outcome: DecisionOutcome
  /** The stable problem code of a refusal (`authentication.required`); undefined when granted. */
  readonly code: string | undefined
  /** The HTTP method and the registered route path (`/tenants/:tenantId`), never the concrete URL. */
  readonly method: string
  readonly route: string
  /** When the decision started (epoch milliseconds) and how long it took. */
  readonly startedAt: number
  readonly durationMs: number
}

/**
 * Receives what Portcullis decides, for metrics and traces. Every method is called synchronously on the
 * request path and must return quickly and never throw (a throwing implementation is ignored).
 */
export interface Instrumentation {
  /** One authentication decision (a span). */
  decision(decision: AuthenticationDecision): void
  /** One refusal, by its stable problem code (a counter); also called for every refused decision. */
  refusal(code: string): void
  /** One request over a rate limit, by the limiter's name (`login.address`, `login.account`). */
  rateLimitHit(limiter: string): void
  /**
   * Whether anything would be recorded now (asked once per decision). False: Portcullis skips timing
   * and building the decision, so an instrumentation with nothing behind it (no SDK registered) costs
   * the request nothing. Absent: always recording.
   */
  recording?(): boolean
}

/** Records nothing: the default when an application configures no instrumentation. */
export const noopInstrumentation: Instrumentation = Object.freeze({
  decision(): void {},
  refusal(): void {},
  rateLimitHit(): void {},
})
