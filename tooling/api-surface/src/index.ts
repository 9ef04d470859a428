import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

/** One entry of a package's `exports` map, resolved to its TypeScript source. */
export interface ExportEntry {
  /** `.` for the root, `./policy` for a subpath. */
  readonly subpath: string
  readonly url: URL
}

/** Every entry of the package's `exports` map, through the `@portcullis/source` condition. */
export function exportEntries(packageRoot: URL): readonly ExportEntry[] {
  const manifest: { exports: Record<string, Record<string, string>> } = JSON.parse(
    readFileSync(new URL('package.json', packageRoot), 'utf8'),
  )
  return Object.entries(manifest.exports).map(([subpath, conditions]) => {
    const source = conditions['@portcullis/source']
    if (source === undefined) throw new Error(`exports["${subpath}"] has no @portcullis/source condition`)
    return { subpath, url: new URL(source, packageRoot) }
  })
}

/** All names (types and values) each entry exports, resolved to the compiler symbol that declares them. */
export function compilerExports(
  packageRoot: URL,
  entries: readonly ExportEntry[],
): Map<string, Map<string, ts.Symbol>> {
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

/** Where the root and the subpaths disagree; every list is empty when the root is exactly their union. */
export interface SurfaceDifferences {
  /** Two subpaths exporting one name for different things. */
  readonly collisions: readonly string[]
  /** Subpath names the root lacks. */
  readonly missing: readonly string[]
  /** Subpath names the root exports as something else. */
  readonly different: readonly string[]
  /** Root names no subpath exports (and that are not listed as root-only). */
  readonly extra: readonly string[]
}

/** Compares the root's compiler exports with the union of the subpaths' (plus `rootOnly` names). */
export function compareSurface(
  exportsByEntry: Map<string, Map<string, ts.Symbol>>,
  rootOnly: readonly string[] = [],
): SurfaceDifferences {
  const rootNames = exportsByEntry.get('.')
  if (rootNames === undefined) throw new Error('the exports map has no "." entry')
  const missing: string[] = []
  const different: string[] = []
  const collisions: string[] = []
  const owners = new Map<string, { subpath: string; symbol: ts.Symbol }>()
  for (const [subpath, names] of exportsByEntry) {
    if (subpath === '.') continue
    for (const [name, symbol] of names) {
      const owner = owners.get(name)
      if (owner !== undefined && owner.symbol !== symbol)
        collisions.push(`${name}: ${owner.subpath} and ${subpath}`)
      owners.set(name, { subpath, symbol })
      const fromRoot = rootNames.get(name)
      if (fromRoot === undefined) missing.push(`${subpath}: ${name}`)
      else if (fromRoot !== symbol) different.push(`${subpath}: ${name}`)
    }
  }
  const allowed = new Set(rootOnly)
  const extra = [...rootNames.keys()].filter((name) => !owners.has(name) && !allowed.has(name))
  return { collisions, missing, different, extra }
}

/** A package's export entries split into its root and its subpaths, and a loader for the root module. */
export function packageSurface(packageRoot: URL) {
  const entries = exportEntries(packageRoot)
  const rootUrl = entries.find((entry) => entry.subpath === '.')?.url.href
  return {
    entries,
    subpaths: entries.filter((entry) => entry.subpath !== '.'),
    rootUrl,
    async importRoot(): Promise<Record<string, unknown>> {
      if (rootUrl === undefined) throw new Error('the exports map has no "." entry')
      return import(rootUrl)
    },
  }
}

/**
 * How a package root differs from "every name of every subpath, the same binding under the same name,
 * plus its own names": every list but `rootOnly` is empty when it is exactly that.
 */
export interface RootSurfaceReport {
  /** `subpath: name` for a runtime name of a subpath the root lacks or exports as another value. */
  readonly runtime: readonly string[]
  /** Runtime names of the root that neither a subpath nor `ownNames` has. */
  readonly runtimeExtra: readonly string[]
  /** Two subpaths exporting one name for different things (compiler symbols, types included). */
  readonly collisions: readonly string[]
  /** Subpath names (types included) the root lacks. */
  readonly missing: readonly string[]
  /** Subpath names (types included) the root exports as something else. */
  readonly different: readonly string[]
  /** Names of `ownNames` a subpath also exports. */
  readonly clashes: readonly string[]
  /** The root's names (types included) no subpath exports, sorted: what a test compares with its own list. */
  readonly rootOnly: readonly string[]
}

/**
 * Compares a package root (`packageRoot`: the package folder's URL) with its subpaths, at runtime by
 * identity and as compiler symbols (type-only names vanish at runtime). `ownNames` are the names only the
 * root exports (the adapter itself).
 */
export async function rootSurfaceReport(
  packageRoot: URL,
  ownNames: readonly string[],
): Promise<RootSurfaceReport> {
  const { entries, subpaths, importRoot } = packageSurface(packageRoot)
  const everything = await importRoot()
  const runtime: string[] = []
  const published = new Set<string>(ownNames)
  for (const entry of subpaths) {
    const subpath: Record<string, unknown> = await import(entry.url.href)
    for (const name of Object.keys(subpath)) {
      published.add(name)
      if (!(name in everything) || everything[name] !== subpath[name])
        runtime.push(`${entry.subpath}: ${name}`)
    }
  }
  const exportsByEntry = compilerExports(packageRoot, entries)
  const rootNames = exportsByEntry.get('.') ?? new Map()
  const subpathNames = new Set(
    subpaths.flatMap((entry) => [...(exportsByEntry.get(entry.subpath)?.keys() ?? [])]),
  )
  const { collisions, missing, different } = compareSurface(exportsByEntry, ownNames)
  return {
    runtime,
    runtimeExtra: Object.keys(everything).filter((name) => !published.has(name)),
    collisions,
    missing,
    different,
    clashes: ownNames.filter((name) => subpathNames.has(name)),
    rootOnly: [...rootNames.keys()].filter((name) => !subpathNames.has(name)).sort(),
  }
}

/** The report of a root that is exactly its subpaths plus `ownNames`: what a public API test expects. */
export function cleanRootSurface(ownNames: readonly string[]): RootSurfaceReport {
  return {
    runtime: [],
    runtimeExtra: [],
    collisions: [],
    missing: [],
    different: [],
    clashes: [],
    rootOnly: [...ownNames].sort(),
  }
}
