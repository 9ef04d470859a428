import { readFileSync } from 'node:fs'
import type { Migration } from './migration.js'

/** Where `drizzle-kit generate` writes migrations (the package's `drizzle/` folder, shipped with it). */
export const GENERATED_MIGRATIONS_FOLDER = new URL('../../drizzle/', import.meta.url)

interface JournalEntry {
  readonly idx: number
  readonly tag: string
}

function readJournal(folder: URL): readonly JournalEntry[] {
  const journal = JSON.parse(readFileSync(new URL('meta/_journal.json', folder), 'utf8')) as {
    entries?: unknown
  }
  if (!Array.isArray(journal.entries)) throw new Error('drizzle journal has no entries')
  return journal.entries.map((entry: { idx?: unknown; tag?: unknown }) => {
    if (typeof entry.idx !== 'number' || typeof entry.tag !== 'string' || !/^\d{4}_[\w-]+$/.test(entry.tag)) {
      throw new Error('drizzle journal entry is malformed')
    }
    return { idx: entry.idx, tag: entry.tag }
  })
}

/**
 * The migrations drizzle-kit generated from the table definitions, as versions after the hand-written
 * ones. Entry 0 of the journal is the baseline: the schema the hand-written migrations create (a test
 * proves they create exactly it), so it is never applied; entry `n` becomes version `baseline + n`.
 */
export function generatedMigrations(
  lastHandWrittenVersion: number,
  folder: URL = GENERATED_MIGRATIONS_FOLDER,
): readonly Migration[] {
  return readJournal(folder)
    .filter((entry) => entry.idx > 0)
    .sort((a, b) => a.idx - b.idx)
    .map((entry) => ({
      version: lastHandWrittenVersion + entry.idx,
      name: entry.tag.slice(5),
      sql: readFileSync(new URL(`${entry.tag}.sql`, folder), 'utf8'),
    }))
}
