// The package root exports the whole public API: the adapter's own names (listed below, so that adding one
// is a deliberate change) and every name of every subpath (read from the package.json `exports` map, so a
// new subpath is covered without touching this file), the same binding under the same name, and nothing
// else. Runtime names are compared by identity; type-only names, which vanish at runtime, are compared as
// compiler symbols.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
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
const manifest: { exports: Record<string, Record<string, string>> } = JSON.parse(
  readFileSync(new URL('package.json', packageRoot), 'utf8'),
)

/** Every entry of the exports map, resolved to its TypeScript source (the `@portcullis/source` condition). */
const entries = Object.entries(manifest.exports).map(([subpath, conditions]) => {
  const source = conditions['@portcullis/source']
  if (source === undefined) throw new Error(`exports["${subpath}"] has no @portcullis/source condition`)
  return { subpath, url: new URL(source, packageRoot) }
})
const subpaths = entries.filter((entry) => entry.subpath !== '.')
const rootUrl = entries.find((entry) => entry.subpath === '.')?.url.href

async function importRoot(): Promise<Record<string, unknown>> {
  if (rootUrl === undefined) throw new Error('the exports map has no "." entry')
  return import(rootUrl)
}

/** All names (types and values) each entry exports, resolved to the symbol that declares them. */
function compilerExports(): Map<string, Map<string, ts.Symbol>> {
  const config = ts.getParsedCommandLineOfConfigFile(
    fileURLToPath(new URL('tsconfig.json', packageRoot)),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
      },
    },
  )
  if (config === undefined) throw new Error('tsconfig.json could not be read')
  const files = entries.map((entry) => fileURLToPath(entry.url))
  const program = ts.createProgram(files, config.options)
  const checker = program.getTypeChecker()
  const result = new Map<string, Map<string, ts.Symbol>>()
  entries.forEach((entry, index) => {
    const sourceFile = program.getSourceFile(files[index] as string)
    const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile)
    if (moduleSymbol === undefined) throw new Error(`${entry.subpath}: not a module`)
    const names = new Map<string, ts.Symbol>()
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
      names.set(exported.name, target)
    }
    result.set(entry.subpath, names)
  })
  return result
}

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
    const exportsByEntry = compilerExports()
    const rootNames = exportsByEntry.get('.') as Map<string, ts.Symbol>
    const missing: string[] = []
    const different: string[] = []
    const collisions: string[] = []
    const owners = new Map<string, { subpath: string; symbol: ts.Symbol }>()
    for (const entry of subpaths) {
      for (const [name, symbol] of exportsByEntry.get(entry.subpath) as Map<string, ts.Symbol>) {
        const owner = owners.get(name)
        if (owner !== undefined && owner.symbol !== symbol) {
          collisions.push(`${name}: ${owner.subpath} and ${entry.subpath}`)
        }
        owners.set(name, { subpath: entry.subpath, symbol })
        const fromRoot = rootNames.get(name)
        if (fromRoot === undefined) missing.push(`${entry.subpath}: ${name}`)
        else if (fromRoot !== symbol) different.push(`${entry.subpath}: ${name}`)
      }
    }
    // A subpath name that the adapter also uses for something else cannot be on the root twice.
    const clashes = ADAPTER_NAMES.filter((name) => owners.has(name))
    const adapter = [...rootNames.keys()].filter((name) => !owners.has(name))
    expect({ collisions, clashes, missing, different }).toEqual({
      collisions: [],
      clashes: [],
      missing: [],
      different: [],
    })
    expect(adapter.sort()).toEqual([...ADAPTER_NAMES].sort())
  })
})
