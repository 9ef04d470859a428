// Writes src/migrations/drizzle-migrations.ts from the drizzle/ folder: the SQL of every migration
// drizzle-kit generated, compiled into the package so that nothing is read from the file system at run
// time (a bundler such as Next.js's takes it with the code). `--check` writes nothing and fails when the
// committed module differs from what drizzle/ holds; the build runs it, and a test compares the two.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { DrizzleMigration } from '../src/migrations/migration.js'

/** Where `drizzle-kit generate` writes migrations (the package's `drizzle/` folder). */
export const DRIZZLE_FOLDER = new URL('../drizzle/', import.meta.url)

/** The generated module, in the package's sources. */
export const DRIZZLE_MODULE = new URL('../src/migrations/drizzle-migrations.ts', import.meta.url)

const TAG = /^\d{4}_[\w-]+$/

/** The journal's entries, in journal order, each with its SQL file's text exactly as it is on disk. */
export function readDrizzleFolder(folder: URL = DRIZZLE_FOLDER): DrizzleMigration[] {
  const journal = JSON.parse(readFileSync(new URL('meta/_journal.json', folder), 'utf8')) as {
    entries?: unknown
  }
  if (!Array.isArray(journal.entries)) throw new Error('drizzle journal has no entries')
  return journal.entries.map((entry: { idx?: unknown; tag?: unknown }) => {
    if (typeof entry.idx !== 'number' || typeof entry.tag !== 'string' || !TAG.test(entry.tag)) {
      throw new Error('drizzle journal entry is malformed')
    }
    return { idx: entry.idx, tag: entry.tag, sql: readFileSync(new URL(`${entry.tag}.sql`, folder), 'utf8') }
  })
}

/** `text` as a template literal whose value is exactly `text` (line breaks kept, so the SQL stays readable). */
function templateLiteral(text: string): string {
  const escaped = text
    .replace(/\\/g, '\\\\')
    .replace(/`/g, '\\`')
    .replace(/\$\{/g, '\\${')
    // A template literal turns CR LF and CR into LF: keep them as escapes.
    .replace(/\r/g, '\\r')
  return `\`${escaped}\``
}

/** The source of `drizzle-migrations.ts` for `entries`, formatted as biome formats it. */
export function renderDrizzleModule(entries: readonly DrizzleMigration[]): string {
  const items = entries.map(
    (entry) =>
      `  {\n    idx: ${entry.idx},\n    tag: '${entry.tag}',\n    sql: ${templateLiteral(entry.sql)},\n  },\n`,
  )
  return [
    '// Generated from drizzle/ by scripts/drizzle-module.ts (`pnpm db:generate` runs it after drizzle-kit):',
    '// do not edit. The build and a test fail when it differs from drizzle/.',
    "import type { DrizzleMigration } from './migration.js'",
    '',
    '/** The journal of drizzle/ in its order, each entry with the exact text of its SQL file. */',
    `export const DRIZZLE_MIGRATIONS: readonly DrizzleMigration[] = [\n${items.join('')}]`,
    '',
  ].join('\n')
}

function main(argv: readonly string[]): number {
  const expected = renderDrizzleModule(readDrizzleFolder())
  const path = fileURLToPath(DRIZZLE_MODULE)
  if (argv.includes('--check')) {
    let committed = ''
    try {
      committed = readFileSync(path, 'utf8')
    } catch {
      // missing: reported below
    }
    if (committed === expected) return 0
    console.error(`${path} differs from drizzle/: run \`pnpm --filter @portcullis/postgres db:module\``)
    return 1
  }
  writeFileSync(path, expected)
  return 0
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2))
}
