// The package root exports the whole public API: the adapter's own names (listed below, so that adding one
// is a deliberate change) and every name of every subpath (read from the package.json `exports` map, so a
// new subpath is covered without touching this file), the same binding under the same name, and nothing
// else. Runtime names are compared by identity; type-only names, which vanish at runtime, are compared as
// compiler symbols.
import { cleanRootSurface, packageSurface, rootSurfaceReport } from '@portcullis/api-surface'
import { describe, expect, it } from 'vitest'

/** What the root exports that no subpath does: the adapter itself. */
const ADAPTER_NAMES = [
  'buildOpenApiDocument',
  'ContextFor',
  'createSecurity',
  'credentialSource',
  'HealthCheck',
  'HealthRouteOptions',
  'HttpMethod',
  'HttpProblem',
  'mountHealthRoute',
  'OpenApiConfig',
  'OpenApiDocument',
  'OpenApiInfo',
  'OpenApiServer',
  'OperationDocumentation',
  'ParsedRoutePath',
  'parseRoutePath',
  'ProblemBody',
  'problemBody',
  'problemErrorHandler',
  'problemFor',
  'ProblemInit',
  'problems',
  'RegisteredRoute',
  'RejectionEvent',
  'requirePrincipal',
  'retryAfterFor',
  'RouteListener',
  'RouteMethod',
  'RouteOptions',
  'RouteRegistry',
  'SecuredHandler',
  'SecuredRequest',
  'SecureRouter',
  'SecureRouterOptions',
  'Security',
  'SecurityConfig',
  'securityHeaderBaseline',
  'SecurityHeaderOverrides',
  'securityOf',
  'sendProblem',
  'StepUpConfig',
]

const packageRoot = new URL('../', import.meta.url)

describe('the package root', () => {
  it('is in the exports map beside at least one subpath', () => {
    const { rootUrl, subpaths } = packageSurface(packageRoot)
    expect(rootUrl).toBeDefined()
    expect(subpaths.length).toBeGreaterThan(0)
  })

  it('exports every name of every subpath as the same binding (runtime values and compiler symbols), and besides them only the adapter', async () => {
    expect(await rootSurfaceReport(packageRoot, ADAPTER_NAMES)).toEqual(cleanRootSurface(ADAPTER_NAMES))
  })
})
