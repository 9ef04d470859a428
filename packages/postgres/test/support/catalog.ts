import type pg from 'pg'
import { MIGRATIONS_TABLE } from '../../src/index.js'

/** Every column, constraint and index of the `portcullis_` tables, in a stable, comparable form. */
export interface Catalog {
  readonly columns: readonly string[]
  readonly constraints: readonly string[]
  readonly indexes: readonly string[]
}

/** Reads the schema the connection's search path shows, leaving out the migrations bookkeeping. */
export async function readCatalog(pool: pg.Pool): Promise<Catalog> {
  const columns = await pool.query<{ line: string }>(
    `select format('%s.%s %s%s nullable=%s default=%s', c.table_name, c.column_name, c.udt_name,
              case when c.data_type = 'ARRAY' then '[]' else '' end, c.is_nullable,
              coalesce(c.column_default, '-')) as line
       from information_schema.columns c
      where c.table_schema = current_schema() and c.table_name like 'portcullis\\_%' and c.table_name <> $1
      order by 1`,
    [MIGRATIONS_TABLE],
  )
  const constraints = await pool.query<{ line: string }>(
    `select format('%s %s %s', t.relname, k.conname, pg_get_constraintdef(k.oid)) as line
       from pg_constraint k join pg_class t on t.oid = k.conrelid
      where t.relnamespace = current_schema()::regnamespace and t.relname like 'portcullis\\_%'
        and t.relname <> $1
      order by 1`,
    [MIGRATIONS_TABLE],
  )
  const indexes = await pool.query<{ line: string }>(
    `select indexdef as line from pg_indexes
      where schemaname = current_schema() and tablename like 'portcullis\\_%' and tablename <> $1
      order by 1`,
    [MIGRATIONS_TABLE],
  )
  return {
    columns: columns.rows.map((row) => row.line),
    constraints: constraints.rows.map((row) => row.line),
    indexes: indexes.rows.map((row) => row.line),
  }
}
