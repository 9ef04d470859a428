import {
  type Counter,
  createNoopMeter,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api'
import type { AuthenticationDecision, Instrumentation } from '@portcullis/core/instrumentation'

/** The instrumentation scope every span and instrument is recorded under. */
export const INSTRUMENTATION_SCOPE = '@portcullis/opentelemetry'

/** The span of one authentication decision. */
export const DECISION_SPAN_NAME = 'portcullis.authentication'

/** The attribute and instrument names Portcullis records (stable: dashboards query them). */
export const TelemetryNames = Object.freeze({
  mechanism: 'portcullis.authentication.mechanism',
  outcome: 'portcullis.authentication.outcome',
  problemCode: 'portcullis.problem.code',
  limiter: 'portcullis.rate_limit.limiter',
  method: 'http.request.method',
  route: 'http.route',
  refusals: 'portcullis.refusals',
  rateLimitHits: 'portcullis.rate_limit.hits',
})

export interface OpenTelemetryInstrumentationOptions {
  /** Default: the global tracer provider (`trace.setGlobalTracerProvider`, what an SDK registers). */
  readonly tracerProvider?: TracerProvider
  /** Default: the global meter provider, looked up again whenever it changes. */
  readonly meterProvider?: MeterProvider
}

interface Counters {
  readonly provider: MeterProvider
  /** The provider is the API's no-op (no SDK registered): the counters record nothing. */
  readonly noop: boolean
  readonly refusals: Counter
  readonly rateLimitHits: Counter
}

/** What a global tracer provider delegates to while no SDK is registered (the API's no-op provider). */
const NO_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate()

/** Whether spans of `provider` can be recorded: false for the global provider with no SDK behind it. */
function tracesRecorded(provider: TracerProvider): boolean {
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NO_TRACER_PROVIDER
}

function countersOf(provider: MeterProvider): Counters {
  const meter = provider.getMeter(INSTRUMENTATION_SCOPE)
  return {
    provider,
    noop: meter === createNoopMeter(),
    refusals: meter.createCounter(TelemetryNames.refusals, {
      description: 'Requests Portcullis refused, by problem code',
      unit: '{refusal}',
    }),
    rateLimitHits: meter.createCounter(TelemetryNames.rateLimitHits, {
      description: 'Attempts over a rate limit, by limiter',
      unit: '{hit}',
    }),
  }
}

/**
 * The `Instrumentation` port on the OpenTelemetry API alone: a span per authentication decision (the
 * mechanism, the outcome and the problem code as attributes, never a credential), a counter of refusals by
 * code and one of rate-limit hits. Without a registered SDK the API is a no-op and nothing is recorded.
 */
export class OpenTelemetryInstrumentation implements Instrumentation {
  readonly #tracerProvider: TracerProvider
  readonly #tracer: Tracer
  readonly #meterProvider: MeterProvider | undefined
  #counters: Counters | undefined

  constructor(options: OpenTelemetryInstrumentationOptions = {}) {
    this.#tracerProvider = options.tracerProvider ?? trace.getTracerProvider()
    this.#tracer = this.#tracerProvider.getTracer(INSTRUMENTATION_SCOPE)
    this.#meterProvider = options.meterProvider
  }

  /**
   * False while neither traces nor metrics can be recorded (no SDK registered, or the API's no-op
   * providers given): Portcullis then skips the decision altogether. Asked again on every decision, so
   * an SDK registered later is used from then on.
   */
  recording(): boolean {
    return tracesRecorded(this.#tracerProvider) || !this.#current().noop
  }

  /** The counters of the current meter provider: the global one may be registered after construction. */
  #current(): Counters {
    const provider = this.#meterProvider ?? metrics.getMeterProvider()
    const counters = this.#counters
    if (counters !== undefined && counters.provider === provider) return counters
    this.#counters = countersOf(provider)
    return this.#counters
  }

  decision(decision: AuthenticationDecision): void {
    const span = this.#tracer.startSpan(DECISION_SPAN_NAME, {
      kind: SpanKind.INTERNAL,
      startTime: decision.startedAt,
    })
    if (span.isRecording()) {
      span.setAttribute(TelemetryNames.mechanism, decision.mechanism)
      span.setAttribute(TelemetryNames.outcome, decision.outcome)
      if (decision.code !== undefined) span.setAttribute(TelemetryNames.problemCode, decision.code)
      span.setAttribute(TelemetryNames.method, decision.method)
      span.setAttribute(TelemetryNames.route, decision.route)
      // A refusal is an expected answer; only a dependency outage is an error of the operation.
      if (decision.outcome === 'unavailable') span.setStatus({ code: SpanStatusCode.ERROR })
    }
    span.end(decision.startedAt + decision.durationMs)
  }

  refusal(code: string): void {
    this.#current().refusals.add(1, { [TelemetryNames.problemCode]: code })
  }

  rateLimitHit(limiter: string): void {
    this.#current().rateLimitHits.add(1, { [TelemetryNames.limiter]: limiter })
  }
}

/** `new OpenTelemetryInstrumentation(options)`: pass it as `instrumentation` to the security and accounts. */
export function openTelemetryInstrumentation(
  options: OpenTelemetryInstrumentationOptions = {},
): Instrumentation {
  return new OpenTelemetryInstrumentation(options)
}
