// The package root exports the whole public API: the adapter's own names (listed below, so that adding one
// is a deliberate change) and every name of every subpath (read from the package.json `exports` map), the
// same binding under the same name, and nothing else.
import { compareSurface, compilerExports, packageSurface } from '@portcullis/api-surface'
import { describe, expect, it } from 'vitest'

/** What the root exports that no subpath does: the adapter itself. */
const ADAPTER_NAMES = [
  'AnyHono',
  'createSecurity',
  'HealthCheck',
  'HealthRouteOptions',
  'healthRoute',
  'HonoApp',
  'HonoHandler',
  'HonoSecurity',
  'HonoSecurityOptions',
  'honoProblemFor',
  'HttpProblem',
  'limitBody',
  'OpenApiConfig',
  'OperationDocumentation',
  'PortcullisEnv',
  'ProblemBody',
  'ProblemInit',
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

const packageRoot = new URL('../', import.meta.url)
const { entries, subpaths, importRoot } = packageSurface(packageRoot)

describe('the package root of @portcullis/hono', () => {
  it.each(subpaths.map((entry) => [entry.subpath, entry] as const))(
    'exports every runtime name of %s as the same value',
    async (_subpath, entry) => {
      const subpath: Record<string, unknown> = await import(entry.url.href)
      const everything = await importRoot()
      for (const name of Object.keys(subpath)) expect(everything[name], name).toBe(subpath[name])
    },
  )

  it('exports every type and value name of every subpath as the same symbol, and besides them only the adapter', () => {
    const exportsByEntry = compilerExports(packageRoot, entries)
    const rootNames = exportsByEntry.get('.') ?? new Map()
    const subpathNames = new Set(
      subpaths.flatMap((entry) => [...(exportsByEntry.get(entry.subpath)?.keys() ?? [])]),
    )
    const { collisions, missing, different } = compareSurface(exportsByEntry, ADAPTER_NAMES)
    expect({ collisions, missing, different }).toEqual({ collisions: [], missing: [], different: [] })
    const adapter = [...rootNames.keys()].filter((name) => !subpathNames.has(name))
    expect(adapter.sort()).toEqual([...ADAPTER_NAMES].sort())
  })
})
