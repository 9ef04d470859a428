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
