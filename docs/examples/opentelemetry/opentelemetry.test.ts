// Metrics and traces as docs/opentelemetry.md shows them: the SDK registered with in-memory exporters,
// the instrumentation given to the security and the accounts, one Express server on loopback.
import type { AddressInfo } from 'node:net'
import { metrics, trace } from '@opentelemetry/api'
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  PASSWORD_ACCEPTED,
} from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import { createSecurity, localAccountRoutes } from '@portcullis/express'
import { openTelemetryInstrumentation, TelemetryNames } from '@portcullis/opentelemetry'
import express from 'express'
import { afterAll, expect, it } from 'vitest'
import { plainHasher } from '../../test/support/example-hasher.js'

// Tests only: a hasher without cost (an application uses @portcullis/argon2).
const hasher = plainHasher

// #region sdk
// The application's SDK (here with in-memory exporters; in production an OTLP exporter).
const spans = new InMemorySpanExporter()
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }))
const exported = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
const reader = new PeriodicExportingMetricReader({ exporter: exported, exportIntervalMillis: 60_000 })
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
// #endregion sdk

// #region wiring
const instrumentation = openTelemetryInstrumentation()

const local = new LocalAccounts({
  profile: 'session',
  accounts: new MemoryAccountStore(),
  sessions: new MemorySessionStore(),
  rateLimits: new MemoryRateLimitStore(),
  hasher,
  passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
  publicOrigin: 'http://127.0.0.1',
  registration: 'open',
  instrumentation, // sign-in attempts over a rate limit
})
const security = createSecurity({
  mechanisms: local.mechanisms,
  instrumentation, // a span per decision, refusals by code
})
// #endregion wiring

const app = express()
app.use(security.middleware)
app.use(localAccountRoutes({ local, security }))
const api = security.router({ prefix: '/api' })
api.get('/me', { auth: required('session') }, (request, response) => {
  response.json({ account: request.security.principal.id })
})
app.use(api)
const server = app.listen(0, '127.0.0.1')
await new Promise<void>((resolve) => server.once('listening', () => resolve()))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

it('records a span for a refused decision and counts the refusal by code', async () => {
  const cookie = '__Host-portcullis-session=forged-session-value-123'
  expect((await fetch(`${base}/api/me`, { headers: { cookie } })).status).toBe(401)

  // #region span
  const [span] = spans.getFinishedSpans()
  expect(span?.name).toBe('portcullis.authentication')
  expect(span?.attributes).toEqual({
    'portcullis.authentication.mechanism': 'session',
    'portcullis.authentication.outcome': 'refused',
    'portcullis.problem.code': 'authentication.required',
    'http.request.method': 'GET',
    'http.route': '/api/me',
  })
  // #endregion span
  expect(JSON.stringify(span?.attributes)).not.toContain('forged-session-value-123')

  await reader.forceFlush()
  const points = exported
    .getMetrics()
    .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics))
    .filter((metric) => metric.descriptor.name === TelemetryNames.refusals)
    .flatMap((metric) => metric.dataPoints.map((point) => ({ ...point.attributes, value: point.value })))
  expect(points).toEqual([{ 'portcullis.problem.code': 'authentication.required', value: 1 }])
})
