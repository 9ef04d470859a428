// Portcullis metrics and traces on the OpenTelemetry API: the `Instrumentation` port of
// `@portcullis/core/instrumentation`, recorded only when the application registers an SDK.
export type { OpenTelemetryInstrumentationOptions } from './instrumentation.js'
export {
  DECISION_SPAN_NAME,
  INSTRUMENTATION_SCOPE,
  OpenTelemetryInstrumentation,
  openTelemetryInstrumentation,
  TelemetryNames,
} from './instrumentation.js'
