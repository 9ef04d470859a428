// The instrumentation port (decisions, refusals, rate-limit hits) and its no-op default. The
// OpenTelemetry implementation is `@portcullis/opentelemetry`.
export type { AuthenticationDecision, DecisionOutcome, Instrumentation } from './instrumentation.js'
export { noopInstrumentation } from './instrumentation.js'
