/** One file an `exports` map names: the subpath, the conditions that lead to it, and the target. */
export interface ExportTarget {
  readonly subpath: string
  readonly conditions: readonly string[]
  readonly target: string
}

/** The workspace-only condition: it points at TypeScript sources that are never published. */
export const SOURCE_CONDITION = '@portcullis/source'

function walk(subpath: string, conditions: readonly string[], value: unknown, into: ExportTarget[]): void {
  if (typeof value === 'string') into.push({ subpath, conditions, target: value })
  else if (Array.isArray(value)) for (const item of value) walk(subpath, conditions, item, into)
  else if (typeof value === 'object' && value !== null) {
    for (const [condition, next] of Object.entries(value))
      walk(subpath, [...conditions, condition], next, into)
  }
}

/**
 * Every target of an `exports` field, with the conditions leading to it. A string or a conditions object
 * at the top is the `.` subpath; `null` targets (excluded subpaths) name no file.
 */
export function exportTargets(exportsField: unknown): ExportTarget[] {
  const targets: ExportTarget[] = []
  if (exportsField === undefined || exportsField === null) return targets
  const entries =
    typeof exportsField === 'object' &&
    !Array.isArray(exportsField) &&
    Object.keys(exportsField).every((key) => key.startsWith('.'))
      ? Object.entries(exportsField)
      : [['.', exportsField] as const]
  for (const [subpath, value] of entries) walk(subpath, [], value, targets)
  return targets
}

/** The `exports` field with the source condition removed at every level: what should be published. */
export function withoutSourceCondition(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const kept = Object.entries(value).filter(([key]) => key !== SOURCE_CONDITION)
  return Object.fromEntries(kept.map(([key, next]) => [key, withoutSourceCondition(next)]))
}

/** `./dist/index.js` -> `dist/index.js`: the path inside the package. */
export function packagePath(target: string): string {
  return target.replace(/^\.\//, '')
}

/** The targets whose file is not in `files` (paths inside the package), with their conditions. */
export function missingTargets(exportsField: unknown, files: ReadonlySet<string>): ExportTarget[] {
  return exportTargets(exportsField).filter((entry) => !files.has(packagePath(entry.target)))
}
