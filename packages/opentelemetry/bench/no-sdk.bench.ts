// The hot path with the OpenTelemetry instrumentation installed but no SDK registered (the global tracer
// and meter providers are the API's no-ops) vs the same credential route without instrumentation
// (budget >= 0.98x, docs/opentelemetry.md): an API-key route on Express, both apps in this process,
// measured interleaved in the same run.
import { randomBytes } from 'node:crypto'
import { metrics, trace } from '@opentelemetry/api'
import { compareHttp, finish, listen } from '@portcullis/bench'
import { ApiKeyPepperRing, ApiKeyService, apiKey, MemoryApiKeyStore } from '@portcullis/core/api-keys'
import type { Instrumentation } from '@portcullis/core/instrumentation'
import { required } from '@portcullis/core/policy'
import { createSecurity } from '@portcullis/express'
import express from 'express'
import { openTelemetryInstrumentation } from '../src/index.js'

const keys = new ApiKeyService({
  store: new MemoryApiKeyStore(),
  peppers: new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }),
  prefix: 'bench',
})
const issued = await keys.issue({ ownerId: 'svc-bench' })
const body = { items: [1, 2, 3] }

function app(instrumentation: Instrumentation | undefined) {
  const security = createSecurity({
    mechanisms: [apiKey({ service: keys })],
    ...(instrumentation === undefined ? {} : { instrumentation }),
  })
  const router = security.router()
  router.get('/api-key', { auth: required('api-key') }, (_request, response) => {
    response.json(body)
  })
  const served = express()
  served.use(security.middleware)
  served.use(router)
  return served
}

const instrumentation = openTelemetryInstrumentation()
// No SDK: what the instrumentation sees are the API's no-op providers.
const span = trace.getTracer('check').startSpan('check')
if (span.isRecording()) throw new Error('an SDK is registered: this benchmark measures the no-SDK path')
span.end()
if (metrics.getMeterProvider().constructor.name !== 'NoopMeterProvider') {
  throw new Error('a meter provider is registered: this benchmark measures the no-SDK path')
}

const [bare, instrumented] = await Promise.all([listen(app(undefined)), listen(app(instrumentation))])
try {
  const headers = { 'x-api-key': issued.value }
  await compareHttp({
    id: 'opentelemetry-no-sdk',
    title: 'API-key route with the OpenTelemetry instrumentation and no SDK vs no instrumentation',
    baseline: { name: 'no instrumentation', url: `${bare.url}/api-key`, headers },
    candidate: { name: 'instrumentation, no SDK', url: `${instrumented.url}/api-key`, headers },
    budget: 0.98,
    // The two sides differ by well under a microsecond a request: more rounds keep the median off the noise.
    rounds: 15,
  })
} finally {
  await Promise.all([bare.close(), instrumented.close()])
}
finish()
