// The package root exports the whole public API: the adapter's own names (listed below, so that adding one
// is a deliberate change) and every name of every subpath (read from the package.json `exports` map, so a
// new subpath is covered without touching this file), the same binding under the same name, and nothing
// else. Runtime names are compared by identity; type-only names, which vanish at runtime, are compared as
// compiler symbols.
import { compareSurface, compilerExports, packageSurface } from '@portcullis/api-surface'
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
const { entries, subpaths, rootUrl, importRoot } = packageSurface(packageRoot)

describe('the package root', () => {
  it('is in the exports map beside at least one subpath', () => {
    expect(rootUrl).toBeDefined()
    expect(subpaths.length).toBeGreaterThan(0)
  })

  it.each(subpaths.map((entry) => [entry.subpath, entry] as const))(
    'exports every runtime name of %s as the same value',
    async (_subpath, entry) => {
      const subpath: Record<string, unknown> = await import(entry.url.href)
      const everything = await importRoot()
      const names = Object.keys(subpath)
      expect(names.filter((name) => !(name in everything))).toEqual([])
      for (const name of names) expect(everything[name], name).toBe(subpath[name])
    },
  )

  it('exports no runtime name that is neither the adapter nor a subpath', async () => {
    const everything = await importRoot()
    const published = new Set<string>(ADAPTER_NAMES)
    for (const entry of subpaths) {
      for (const name of Object.keys(await import(entry.url.href))) published.add(name)
    }
    expect(Object.keys(everything).filter((name) => !published.has(name))).toEqual([])
  })

  it('exports every type and value name of every subpath as the same symbol, and besides them only the adapter', () => {
    const exportsByEntry = compilerExports(packageRoot, entries)
    const rootNames = exportsByEntry.get('.') ?? new Map()
    const subpathNames = new Set(
      subpaths.flatMap((entry) => [...(exportsByEntry.get(entry.subpath)?.keys() ?? [])]),
    )
    // A subpath name that the adapter also uses for something else cannot be on the root twice.
    const clashes = ADAPTER_NAMES.filter((name) => subpathNames.has(name))
    const { collisions, missing, different } = compareSurface(exportsByEntry, ADAPTER_NAMES)
    expect({ collisions, clashes, missing, different }).toEqual({
      collisions: [],
      clashes: [],
      missing: [],
      different: [],
    })
    const adapter = [...rootNames.keys()].filter((name) => !subpathNames.has(name))
    expect(adapter.sort()).toEqual([...ADAPTER_NAMES].sort())
  })
})
