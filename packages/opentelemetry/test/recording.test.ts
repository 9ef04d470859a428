// Whether the instrumentation records: false with no SDK (Portcullis then skips the decision), true once
// an SDK registers, even after the instrumentation was made; providers given explicitly are asked too.
import { metrics, trace } from '@opentelemetry/api'
import { MeterProvider } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { afterEach, expect, it } from 'vitest'
import { openTelemetryInstrumentation } from '../src/index.js'
import { registerSdk } from './support/telemetry.js'

afterEach(() => {
  trace.disable()
  metrics.disable()
})

it('records nothing without an SDK, and records once one registers after it was made', async () => {
  const instrumentation = openTelemetryInstrumentation()
  expect(instrumentation.recording?.()).toBe(false)
  const sdk = registerSdk()
  try {
    expect(instrumentation.recording?.()).toBe(true)
    instrumentation.decision({
      mechanism: 'api-key',
      outcome: 'granted',
      code: undefined,
      method: 'GET',
      route: '/reports',
      startedAt: Date.now(),
      durationMs: 1,
    })
    expect(sdk.spans()).toHaveLength(1)
  } finally {
    await sdk.shutdown()
  }
})

it('records when only traces or only metrics have a provider', () => {
  expect(openTelemetryInstrumentation({ tracerProvider: new BasicTracerProvider() }).recording?.()).toBe(true)
  expect(openTelemetryInstrumentation({ meterProvider: new MeterProvider() }).recording?.()).toBe(true)
  metrics.setGlobalMeterProvider(new MeterProvider())
  expect(openTelemetryInstrumentation().recording?.()).toBe(true)
})
