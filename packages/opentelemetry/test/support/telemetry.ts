// The OpenTelemetry SDK (2.x) with in-memory exporters, registered globally as an application would.
import { metrics, trace } from '@opentelemetry/api'
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'

export interface RegisteredSdk {
  readonly spans: () => ReadableSpan[]
  /** Every data point of a counter after a collection: its attributes and value. */
  readonly points: (
    name: string,
  ) => Promise<{ readonly attributes: Record<string, unknown>; readonly value: number }[]>
  readonly shutdown: () => Promise<void>
}

export function registerSdk(): RegisteredSdk {
  const spanExporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)] })
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
  })
  const meterProvider = new MeterProvider({ readers: [reader] })
  trace.setGlobalTracerProvider(tracerProvider)
  metrics.setGlobalMeterProvider(meterProvider)
  return {
    spans: () => spanExporter.getFinishedSpans(),
    points: async (name) => {
      metricExporter.reset()
      await reader.forceFlush()
      const found: { attributes: Record<string, unknown>; value: number }[] = []
      for (const resource of metricExporter.getMetrics()) {
        for (const scope of resource.scopeMetrics) {
          for (const metric of scope.metrics) {
            if (metric.descriptor.name !== name) continue
            for (const point of metric.dataPoints) {
              found.push({ attributes: { ...point.attributes }, value: point.value as number })
            }
          }
        }
      }
      return found
    },
    shutdown: async () => {
      await tracerProvider.shutdown()
      await meterProvider.shutdown()
      trace.disable()
      metrics.disable()
    },
  }
}
