// The committed export surface of a published package: every name each entry of its `exports` map exports,
// with its kind (class, function, const, interface, type, enum, namespace). A name that disappears or
// changes kind breaks its importers, so the check refuses it unless a changeset (or the package's
// changelog, once the changesets are versioned) names it; a new name only needs the snapshot rewritten.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { type ExportEntry, exportEntries } from './index.js'

/** Export name -> kind, per entry of the exports map (`.`, `./policy`, ...). */
export type ExportSurface = Record<string, Record<string, string>>

/** The file beside a package's package.json that holds its committed surface. */
export const SNAPSHOT_FILE = 'api-surface.json'

const KIND_FLAGS: readonly (readonly [ts.SymbolFlags, string])[] = [
  [ts.SymbolFlags.Class, 'class'],
  [ts.SymbolFlags.Function, 'function'],
  [ts.SymbolFlags.Variable, 'const'],
  [ts.SymbolFlags.Enum, 'enum'],
  [ts.SymbolFlags.Interface, 'interface'],
  [ts.SymbolFlags.TypeAlias, 'type'],
  [ts.SymbolFlags.ValueModule | ts.SymbolFlags.NamespaceModule, 'namespace'],
]

/** `class`, `function`, `const`, `interface`, ... or several joined with `+` (a value and a type of one name). */
export function symbolKind(symbol: ts.Symbol): string {
  const kinds = KIND_FLAGS.filter(([flags]) => (symbol.flags & flags) !== 0).map(([, kind]) => kind)
  return kinds.length === 0 ? 'other' : kinds.join('+')
}

/** Whether any re-export or import on the way from this export to its declaration is type-only. */
function typeOnlyAlias(checker: ts.TypeChecker, symbol: ts.Symbol): boolean {
  let current: ts.Symbol | undefined = symbol
  for (let hops = 0; current !== undefined && current.flags & ts.SymbolFlags.Alias && hops < 50; hops++) {
    if ((current.declarations ?? []).some((node) => ts.isTypeOnlyImportOrExportDeclaration(node))) return true
    current = checker.getImmediateAliasedSymbol(current)
  }
  return false
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/**
 * The export surface of each package, read from its sources through the `@portcullis/source` condition
 * with one compiler program for all of them (the compiler options come from the first package's
 * tsconfig.json).
 */
export function exportSurfaces(packageRoots: readonly URL[]): ExportSurface[] {
  const first = packageRoots[0]
  if (first === undefined) return []
  const config = ts.getParsedCommandLineOfConfigFile(
    fileURLToPath(new URL('tsconfig.json', first)),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
      },
    },
  )
  if (config === undefined) throw new Error('tsconfig.json could not be read')
  const entriesByPackage: (readonly ExportEntry[])[] = packageRoots.map((root) => exportEntries(root))
  const files = entriesByPackage.flatMap((entries) => entries.map((entry) => fileURLToPath(entry.url)))
  const program = ts.createProgram(files, config.options)
  const checker = program.getTypeChecker()
  return entriesByPackage.map((entries) => {
    const surface: ExportSurface = {}
    for (const entry of entries) {
      const sourceFile = program.getSourceFile(fileURLToPath(entry.url))
      const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile)
      if (moduleSymbol === undefined) throw new Error(`${entry.url.pathname}: not a module`)
      const names: Record<string, string> = {}
      for (const exported of checker.getExportsOfModule(moduleSymbol)) {
        const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
        const kind = symbolKind(target)
        // `export type { Foo }` of a class leaves no value at runtime: a different kind for importers.
        const valueHidden = (target.flags & ts.SymbolFlags.Value) !== 0 && typeOnlyAlias(checker, exported)
        names[exported.name] = valueHidden ? `type-only ${kind}` : kind
      }
      surface[entry.subpath] = sorted(names)
    }
    return surface
  })
}

/** One export that differs between the snapshot and the sources. */
export interface SurfaceChange {
  readonly subpath: string
  readonly name: string
  /** Kind in the snapshot; undefined for an added export. */
  readonly before?: string
  /** Kind now; undefined for a removed export. */
  readonly after?: string
}

/** Exports added, removed, and changed in kind, from the snapshot to the current surface. */
export function compareSurfaces(
  snapshot: ExportSurface,
  current: ExportSurface,
): { added: SurfaceChange[]; removed: SurfaceChange[]; changed: SurfaceChange[] } {
  const added: SurfaceChange[] = []
  const removed: SurfaceChange[] = []
  const changed: SurfaceChange[] = []
  for (const subpath of new Set([...Object.keys(snapshot), ...Object.keys(current)])) {
    const before = snapshot[subpath] ?? {}
    const after = current[subpath] ?? {}
    for (const [name, kind] of Object.entries(before)) {
      const now = after[name]
      if (now === undefined) removed.push({ subpath, name, before: kind })
      else if (now !== kind) changed.push({ subpath, name, before: kind, after: now })
    }
    for (const [name, kind] of Object.entries(after)) {
      if (before[name] === undefined) added.push({ subpath, name, after: kind })
    }
  }
  return { added, removed, changed }
}

/** Whether `text` names `name` as a whole identifier (`Foo` is not named by `FooBar`). */
export function names(text: string, name: string): boolean {
  const escaped = name.replace(/[$]/g, '\\$')
  return new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`).test(text)
}

/** The texts that may announce a breaking change: every pending changeset, and the package's changelog. */
export function announcementTexts(changesetDir: URL, packageRoot?: URL): string[] {
  const texts = existsSync(changesetDir)
    ? readdirSync(changesetDir)
        .filter((file) => file.endsWith('.md') && file !== 'README.md')
        .map((file) => readFileSync(new URL(file, changesetDir), 'utf8'))
    : []
  const changelog = packageRoot && new URL('CHANGELOG.md', packageRoot)
  if (changelog !== undefined && existsSync(changelog)) texts.push(readFileSync(changelog, 'utf8'))
  return texts
}

/** What the check refuses: added exports missing from the snapshot, and unannounced breaking changes. */
export interface SurfaceCheck {
  /** New exports: rewrite the snapshot (`pnpm api:snapshot`). */
  readonly unrecorded: readonly SurfaceChange[]
  /** Removed or re-kinded exports that no changeset names. */
  readonly unannounced: readonly SurfaceChange[]
  /** Removed or re-kinded exports that a changeset names: the snapshot may be rewritten. */
  readonly announced: readonly SurfaceChange[]
}

export function checkSurface(
  snapshot: ExportSurface,
  current: ExportSurface,
  announcements: readonly string[],
): SurfaceCheck {
  const { added, removed, changed } = compareSurfaces(snapshot, current)
  const breaking = [...removed, ...changed]
  const isAnnounced = (change: SurfaceChange) => announcements.some((text) => names(text, change.name))
  return {
    unrecorded: added,
    unannounced: breaking.filter((change) => !isAnnounced(change)),
    announced: breaking.filter(isAnnounced),
  }
}

/** One line per change, for test failures and the snapshot script. */
export function describeChange(packageName: string, change: SurfaceChange): string {
  const where = `${packageName}${change.subpath === '.' ? '' : change.subpath.slice(1)}`
  if (change.before === undefined) return `${where}: ${change.name} (${change.after}) was added`
  if (change.after === undefined) return `${where}: ${change.name} (${change.before}) was removed`
  return `${where}: ${change.name} changed from ${change.before} to ${change.after}`
}

/** The committed snapshot of a package, or an empty surface when it has none yet. */
export function readSnapshot(packageRoot: URL): ExportSurface {
  const file = new URL(SNAPSHOT_FILE, packageRoot)
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ExportSurface) : {}
}

/** The snapshot file's text: subpaths in exports-map order, names sorted, one per line. */
export function formatSnapshot(surface: ExportSurface): string {
  return `${JSON.stringify(surface, null, 2)}\n`
}

/**
 * What rewriting a package's snapshot would do: refused (one line per unannounced removal or change of
 * kind) when a breaking change is not named by a changeset, otherwise the surface to write (undefined when
 * the snapshot is already current).
 */
export function planSnapshotUpdate(
  packageName: string,
  snapshot: ExportSurface,
  current: ExportSurface,
  announcements: readonly string[],
): { refused: string[]; next?: ExportSurface } {
  const check = checkSurface(snapshot, current, announcements)
  if (check.unannounced.length > 0) {
    return { refused: check.unannounced.map((change) => describeChange(packageName, change)) }
  }
  return formatSnapshot(snapshot) === formatSnapshot(current)
    ? { refused: [] }
    : { refused: [], next: current }
}
