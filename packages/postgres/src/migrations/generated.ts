import { DRIZZLE_MIGRATIONS } from './drizzle-migrations.js'
import type { DrizzleMigration, Migration } from './migration.js'

/** A drizzle-kit tag: the four-digit index, then the name (`0004_session-handle-tags`). */
const TAG = /^\d{4}_[\w-]+$/

/**
 * The migrations drizzle-kit generated from the table definitions, as versions after the hand-written
 * ones. Entry 0 of the journal is the baseline: the schema the hand-written migrations create (a test
 * proves they create exactly it), so it is never applied; entry `n` becomes version `baseline + n`.
 * The SQL is compiled in (`drizzle-migrations.ts`, generated from `drizzle/`), so nothing is read from
 * the file system at run time and a bundler takes the migrations with the code.
 */
export function generatedMigrations(
  lastHandWrittenVersion: number,
  entries: readonly DrizzleMigration[] = DRIZZLE_MIGRATIONS,
): readonly Migration[] {
  for (const entry of entries) {
    if (!Number.isSafeInteger(entry.idx) || entry.idx < 0 || !TAG.test(entry.tag)) {
      throw new Error('drizzle journal entry is malformed')
    }
  }
  return [...entries]
    .filter((entry) => entry.idx > 0)
    .sort((a, b) => a.idx - b.idx)
    .map((entry) => ({
      version: lastHandWrittenVersion + entry.idx,
      name: entry.tag.slice(5),
      sql: entry.sql,
    }))
}
