import type { QueryResult, QueryResultRow } from 'pg'
import type { Migration } from './migration.js'

/** A plain index a migration creates with `CREATE INDEX IF NOT EXISTS`, and the table it is on. */
export interface IndexBuild {
  readonly name: string
  readonly table: string
  /** The same definition as `CREATE INDEX CONCURRENTLY IF NOT EXISTS ...`. */
  readonly concurrently: string
}

const PLAIN_INDEX = /^CREATE INDEX IF NOT EXISTS ("?)(\w+)\1 ON ("?)(\w+)\3 (.+)$/is

/** The plain (non-unique) indexes `migration` creates with IF NOT EXISTS, in order. */
export function indexBuildsOf(migration: Migration): IndexBuild[] {
  return migration.sql
    .split('--> statement-breakpoint')
    .map((statement) =>
      statement
        .replace(/^\s*--.*$/gm, '')
        .trim()
        .replace(/;$/, ''),
    )
    .flatMap((statement) => {
      const match = PLAIN_INDEX.exec(statement)
      if (match?.[2] === undefined || match[4] === undefined || match[5] === undefined) return []
      const [name, table, rest] = [match[2], match[4], match[5]]
      return [
        {
          name,
          table,
          concurrently: `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ON "${table}" ${rest}`,
        },
      ]
    })
}

type Connection = {
  query<R extends QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>
}

/** The index builds of `pending` whose table exists and whose index does not (yet). */
export async function missingIndexBuilds(
  connection: Connection,
  pending: readonly Migration[],
): Promise<IndexBuild[]> {
  const missing: IndexBuild[] = []
  for (const build of pending.flatMap(indexBuildsOf)) {
    const state = await connection.query<{ table: string | null; index: string | null }>(
      'select to_regclass($1)::text as table, to_regclass($2)::text as index',
      [build.table, build.name],
    )
    const row = state.rows[0]
    if (row !== undefined && row.table !== null && row.index === null) missing.push(build)
  }
  return missing
}

/**
 * Before the migration transaction: builds the plain indexes pending migrations add to tables that
 * already exist with `CREATE INDEX CONCURRENTLY`, one statement each outside any transaction, so reads and
 * writes of those tables go on while they build. The migrations then find them (IF NOT EXISTS) and only
 * record their versions. The caller holds the migration advisory lock at session level, so one instance
 * builds while the others wait. A build that fails leaves an invalid index, which the migration drops and
 * builds again inside its transaction; the error is thrown here. Each table it built on is analyzed.
 */
export async function buildIndexesConcurrently(
  connection: Connection,
  pending: readonly Migration[],
): Promise<string[]> {
  const built: string[] = []
  const tables = new Set<string>()
  for (const build of await missingIndexBuilds(connection, pending)) {
    await connection.query(build.concurrently)
    built.push(build.name)
    tables.add(build.table)
  }
  // A new expression index has no statistics until the table is analyzed: until then the planner guesses
  // half a percent of the table for each value. ANALYZE samples the table and blocks neither reads nor writes.
  for (const table of tables) await connection.query(`analyze "${table}"`)
  return built
}
