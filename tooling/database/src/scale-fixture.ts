// A database the size of a real deployment, filled in seconds: set-based INSERT ... SELECT statements over
// generate_series into the tables the migrations made, with their indexes and constraints rebuilt from
// their own definitions after the load (a sorted build instead of a million index insertions), then
// ANALYZE, on two connections at once. The database must be migrated and hold no fixture rows yet; the
// fill is not one transaction: after a failure, drop the database.
import pg from 'pg'
import { SCALE_GRANT_TABLES, SCALE_TABLES, type ScaleTable } from './scale/tables.js'

export { scaleIds } from './scale/ids.js'
export type { ScaleTable } from './scale/tables.js'
export { SCALE_GRANT_TABLES, SCALE_TABLES } from './scale/tables.js'

export interface FillScaleFixtureOptions {
  /** How many accounts; every other table is sized from this (see `SCALE_TABLES`). */
  readonly accounts: number
  /**
   * A well-formed sealed envelope stored in every sealed column (retained tokens, TOTP secrets, OAuth
   * transaction secrets, revocation retries). Envelopes are bound to their row, so these rows are sized
   * like real ones but only rows the application seals itself open; a test seals its samples through the
   * stores. Default: a `pe1` envelope of 180 random-looking bytes.
   */
  readonly fillerEnvelope?: string
  /** The password hash stored for every account. Default: an argon2id PHC string of the usual size. */
  readonly passwordHash?: string
  /** The instant the rows are relative to. Default: now. */
  readonly now?: Date
  /** Accounts per INSERT statement. Default 250 000. */
  readonly batchSize?: number
  /**
   * Connections working at once when given a connection string (each loads, indexes and analyzes a
   * share of the tables). Default 2. A given client works alone.
   */
  readonly connections?: number
  /** Extra tables (the authorization server's grants) filled like the built-in ones. */
  readonly extraTables?: readonly ScaleTable[]
}

export interface ScaleFixtureReport {
  readonly accounts: number
  /** Rows per table after the fill. */
  readonly rows: Readonly<Record<string, number>>
  /** Seconds of statements loading each table (before its indexes are rebuilt), summed over connections. */
  readonly loadSeconds: Readonly<Record<string, number>>
  /** Wall-clock seconds: loading, rebuilding indexes and constraints, analyzing, and in all. */
  readonly seconds: {
    readonly load: number
    readonly index: number
    readonly analyze: number
    readonly total: number
  }
}

const DEFAULT_ENVELOPE = `pe1.fixture-1.${Buffer.alloc(180, 0x5a).toString('base64url')}`
const DEFAULT_HASH = `$argon2id$v=19$m=19456,t=2,p=1$${'c2NhbGVmaXh0dXJlc2FsdA'}$${'A'.repeat(43)}`

const seconds = (from: number, to: number) => Math.round((to - from) / 100) / 10
const literal = (value: string): string => `'${value.replaceAll("'", "''")}'`

/** The statement for one batch: `$1`..`$5` replaced by literals (a statement may use any subset). */
function batchStatement(table: ScaleTable, values: readonly string[]): string {
  return table.insert.replace(/\$([1-5])/g, (_, n: string) => values[Number(n) - 1] ?? '')
}

interface Definition {
  readonly table: string
  readonly name: string
  readonly kind: 'constraint' | 'index'
  readonly sql: string
}

/**
 * Indexes not backing a constraint, and constraints with an index or a foreign key, of `tables`; and the
 * foreign keys of other tables that reference them (they would keep a key of `tables` from being dropped).
 */
async function definitionsOf(client: pg.ClientBase, tables: readonly string[]): Promise<Definition[]> {
  const constraints = await client.query<Definition>(
    `select c.conrelid::regclass::text as table, c.conname as name, 'constraint' as kind,
            'alter table ' || c.conrelid::regclass::text || ' add constraint ' || quote_ident(c.conname) || ' '
              || pg_get_constraintdef(c.oid) as sql
       from pg_constraint c
      where (c.conrelid = any($1::regclass[]) and c.contype in ('p', 'u', 'f'))
         or (c.contype = 'f' and c.confrelid = any($1::regclass[]))
      order by case c.contype when 'f' then 1 else 0 end, c.conname`,
    [tables],
  )
  const indexes = await client.query<Definition>(
    `select i.indrelid::regclass::text as table, x.relname as name, 'index' as kind,
            pg_get_indexdef(i.indexrelid) as sql
       from pg_index i join pg_class x on x.oid = i.indexrelid
      where i.indrelid = any($1::regclass[])
        and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
      order by x.relname`,
    [tables],
  )
  return [...constraints.rows, ...indexes.rows]
}

async function dropDefinitions(client: pg.ClientBase, definitions: readonly Definition[]): Promise<void> {
  // Foreign keys first (they depend on the keys they reference), then keys and indexes.
  const order = [...definitions].sort(
    (a, b) => Number(b.sql.includes('FOREIGN KEY')) - Number(a.sql.includes('FOREIGN KEY')),
  )
  for (const definition of order) {
    await client.query(
      definition.kind === 'index'
        ? `drop index ${definition.name}`
        : `alter table ${definition.table} drop constraint ${definition.name}`,
    )
  }
}

/** `workers` connections to the target (the given client alone when it is one), ended afterwards. */
async function withClients<T>(
  target: pg.ClientBase | string,
  workers: number,
  run: (clients: readonly pg.ClientBase[]) => Promise<T>,
): Promise<T> {
  if (typeof target !== 'string') return run([target])
  const clients = Array.from({ length: workers }, () => new pg.Client({ connectionString: target }))
  try {
    await Promise.all(clients.map((client) => client.connect()))
    return await run(clients)
  } finally {
    await Promise.all(clients.map((client) => client.end().catch(() => undefined)))
  }
}

interface Task {
  /** What the elapsed time is added to. */
  readonly label: string
  readonly sql: string
}

/** Runs every task, each on the first connection free; answers the seconds spent per label. */
async function runOnAll(
  clients: readonly pg.ClientBase[],
  tasks: readonly Task[],
): Promise<Record<string, number>> {
  const spent: Record<string, number> = {}
  let next = 0
  await Promise.all(
    clients.map(async (client) => {
      for (let task = tasks[next++]; task !== undefined; task = tasks[next++]) {
        const started = performance.now()
        await client.query(task.sql)
        spent[task.label] =
          Math.round(((spent[task.label] ?? 0) + seconds(started, performance.now())) * 10) / 10
      }
    }),
  )
  return spent
}

/**
 * Fills a migrated, empty Portcullis database with `accounts` accounts and what they own (see
 * `SCALE_TABLES`), rebuilds each filled table's indexes and constraints exactly as the migrations defined
 * them, and runs ANALYZE. Returns the row counts and how long each phase took.
 */
export async function fillScaleFixture(
  target: pg.ClientBase | string,
  options: FillScaleFixtureOptions,
): Promise<ScaleFixtureReport> {
  const { accounts } = options
  if (!Number.isSafeInteger(accounts) || accounts < 1 || accounts > 100_000_000) {
    throw new RangeError('accounts must be an integer 1-100000000')
  }
  const batchSize = options.batchSize ?? 250_000
  if (!Number.isSafeInteger(batchSize) || batchSize < 1)
    throw new RangeError('batchSize must be a positive integer')
  const now = (options.now ?? new Date()).toISOString()
  const tables = [...SCALE_TABLES, ...SCALE_GRANT_TABLES, ...(options.extraTables ?? [])]
  const names = tables.map((table) => table.table)
  const workers = options.connections ?? 2
  if (!Number.isSafeInteger(workers) || workers < 1 || workers > 16) {
    throw new RangeError('connections must be an integer 1-16')
  }
  const envelope = literal(options.fillerEnvelope ?? DEFAULT_ENVELOPE)
  const hash = literal(options.passwordHash ?? DEFAULT_HASH)
  return withClients(target, workers, async (clients) => {
    const [client] = clients as [pg.ClientBase]
    const started = performance.now()
    for (const each of clients) {
      await each.query(`set maintenance_work_mem = '256MB'`)
      await each.query('set synchronous_commit = off')
    }
    const definitions = await definitionsOf(client, names)
    await dropDefinitions(client, definitions)
    const loadSeconds = await runOnAll(
      clients,
      tables.flatMap((table) =>
        Array.from({ length: Math.ceil(accounts / batchSize) }, (_, n) => {
          const from = 1 + n * batchSize
          const to = Math.min(accounts, from + batchSize - 1)
          const values = [String(from), String(to), literal(now), envelope, hash]
          return { label: table.table, sql: batchStatement(table, values) }
        }),
      ),
    )
    const loaded = performance.now()
    // Keys and indexes in parallel (two on one table wait for each other), then the foreign keys.
    const foreign = (definition: Definition) => definition.sql.includes('FOREIGN KEY')
    const rebuild = (list: readonly Definition[]) =>
      runOnAll(
        clients,
        list.map((definition) => ({ label: definition.name, sql: definition.sql })),
      )
    await rebuild(definitions.filter((definition) => !foreign(definition)))
    await rebuild(definitions.filter(foreign))
    const indexed = performance.now()
    await runOnAll(
      clients,
      names.map((name) => ({ label: name, sql: `analyze ${name}` })),
    )
    const analyzed = performance.now()
    const counts = await client.query<{ table: string; rows: string }>(
      names.map((name) => `select '${name}' as table, count(*) as rows from ${name}`).join(' union all '),
    )
    return {
      accounts,
      loadSeconds,
      rows: Object.fromEntries(counts.rows.map((row) => [row.table, Number(row.rows)])),
      seconds: {
        load: seconds(started, loaded),
        index: seconds(loaded, indexed),
        analyze: seconds(indexed, analyzed),
        total: seconds(started, analyzed),
      },
    }
  })
}
