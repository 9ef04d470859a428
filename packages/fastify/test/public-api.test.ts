// The package root exports the whole public API: the adapter's own names (listed below, so that adding one
// is a deliberate change) and every name of every subpath (read from the package.json `exports` map), the
// same binding under the same name, and nothing else.
import { cleanRootSurface, rootSurfaceReport } from '@portcullis/api-surface'
import { describe, expect, it } from 'vitest'

/** What the root exports that no subpath does: the adapter itself. */
const ADAPTER_NAMES = [
  'FastifySecurity',
  'FastifySecurityOptions',
  'fastifyProblemFor',
  'HealthCheck',
  'HealthRouteOptions',
  'healthRoute',
  'HttpProblem',
  'OpenApiConfig',
  'OperationDocumentation',
  'ProblemBody',
  'ProblemInit',
  'PORTCULLIS_MAX_PARAM_LENGTH',
  'PortcullisServerOptions',
  'portcullis',
  'portcullisFrameworkErrors',
  'portcullisServerOptions',
  'problemBody',
  'problemErrorHandler',
  'problemFor',
  'problems',
  'RegisteredRoute',
  'RejectionEvent',
  'RouteOptions',
  'requirePrincipal',
  'retryAfterFor',
  'StepUpConfig',
  'securityOf',
  'sendProblem',
]

describe('the package root of @portcullis/fastify', () => {
  it('exports every name of every subpath as the same binding (runtime values and compiler symbols), and besides them only the adapter', async () => {
    const report = await rootSurfaceReport(new URL('../', import.meta.url), ADAPTER_NAMES)
    expect(report).toEqual(cleanRootSurface(ADAPTER_NAMES))
  })
})
