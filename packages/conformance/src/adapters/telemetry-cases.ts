import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { openTelemetryInstrumentation, TelemetryNames } from '@portcullis/opentelemetry'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { call } from './http-client.js'
import { policyWorld } from './policy-world.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

/** The OpenTelemetry SDK (2.x) with in-memory exporters, as providers of this case only (nothing global). */
function inMemorySdk() {
  const spans = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] })
  const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 3_600_000 })
  const meterProvider = new MeterProvider({ readers: [reader] })
  return {
    instrumentation: openTelemetryInstrumentation({ tracerProvider, meterProvider }),
    spans: () => spans.getFinishedSpans(),
    async points(name: string) {
      metrics.reset()
      await reader.forceFlush()
      const found: { attributes: Record<string, unknown>; value: number }[] = []
      for (const resource of metrics.getMetrics())
        for (const scope of resource.scopeMetrics)
          for (const metric of scope.metrics)
            if (metric.descriptor.name === name)
              for (const point of metric.dataPoints)
                found.push({ attributes: { ...point.attributes }, value: Number(point.value) })
      return found
    },
    async shutdown() {
      await tracerProvider.shutdown()
      await meterProvider.shutdown()
    },
  }
}

export const telemetryCases: readonly Case[] = [
  conformanceCase(
    'adapter.telemetry',
    "a span per route decision with the mechanism, the outcome and the problem code, refusals counted by code, the route's template and method as attributes, and never a credential",
    async (fixture, check) => {
      const sdk = inMemorySdk()
      try {
        const world = policyWorld()
        const app = await fixture.start({
          ...world.scenario,
          security: { ...world.scenario.security, instrumentation: sdk.instrumentation },
        })
        const get = (target: string, headers: Record<string, string> = {}) =>
          call(app.url, target, { headers })
        const statuses = [
          (await get('/me', { authorization: 'Bearer alice-token' })).status,
          (await get('/me')).status,
          (await get('/me', { authorization: 'Bearer forged-token' })).status,
          (await get('/reports', { 'x-api-key': 'bob-key' })).status,
          (await get('/tenants/acme/report', { authorization: 'Bearer alice-token' })).status,
        ]
        check(statuses.join(',') === '200,401,401,403,200', `statuses ${statuses.join(',')}`)
        const decisions = sdk
          .spans()
          .filter((span) => span.name === 'portcullis.authentication')
          .map((span) => ({ ...span.attributes }))
        const seen = (route: string, mechanism: string, outcome: string, code?: string) =>
          decisions.some(
            (attributes) =>
              attributes[TelemetryNames.route] === route &&
              attributes[TelemetryNames.method] === 'GET' &&
              attributes[TelemetryNames.mechanism] === mechanism &&
              attributes[TelemetryNames.outcome] === outcome &&
              attributes[TelemetryNames.problemCode] === code,
          )
        check(decisions.length === 5, `${decisions.length} decision spans, expected 5`)
        check(seen('/me', 'bearer', 'granted'), 'no granted span of the bearer on /me')
        check(
          seen('/me', 'none', 'refused', 'authentication.required'),
          'no refused span without credentials',
        )
        check(
          decisions.filter((attributes) => attributes[TelemetryNames.outcome] === 'refused').length === 3,
          'three refusals expected among the spans',
        )
        check(
          decisions.some(
            (attributes) =>
              attributes[TelemetryNames.route] === '/reports' &&
              attributes[TelemetryNames.mechanism] === 'api-key' &&
              attributes[TelemetryNames.outcome] === 'refused' &&
              typeof attributes[TelemetryNames.problemCode] === 'string',
          ),
          'no refused span of the API key on /reports (403, its problem code)',
        )
        check(
          seen('/tenants/:tenantId/report', 'bearer', 'granted'),
          'the route attribute is not the template /tenants/:tenantId/report',
        )
        const refusals = await sdk.points(TelemetryNames.refusals)
        const total = refusals.reduce((sum, point) => sum + point.value, 0)
        const required = refusals.find(
          (point) => point.attributes[TelemetryNames.problemCode] === 'authentication.required',
        )
        check(total === 3, `${total} refusals counted, expected 3`)
        check(
          required?.value === 2,
          `authentication.required counted ${required?.value ?? 0} times, expected 2`,
        )
        const recorded = JSON.stringify([decisions, refusals])
        for (const secret of ['alice-token', 'forged-token', 'bob-key', 'acme/report']) {
          check(!recorded.includes(secret), `a span or counter attribute holds ${secret}`)
        }
      } finally {
        await sdk.shutdown()
      }
    },
  ),
]
