// Which locks a migration takes on a large database and how long it holds them. A migration whose SQL is
// idempotent on the current schema (its objects made with IF NOT EXISTS: the index migrations) is
// applied again after dropping what it creates, in one transaction as `migrate` runs it, while a second
// connection samples pg_locks for the migrating backend every few milliseconds. A lock that blocks
// writes (SHARE and above) or reads (ACCESS EXCLUSIVE) of a user table is reported with how long it was
// held. Migrations that create tables or move data cannot be applied again on a filled schema: they are
// listed as not measured.
import pg from 'pg'
import { MIGRATIONS, MIGRATIONS_TABLE, migrate, type PostgresClient } from '../../src/index.js'

export interface MigrationLock {
  /** `plain`: the migration's SQL in one transaction; `migrate`: what migrate() does (concurrent builds first). */
  readonly how: 'plain' | 'migrate'
  readonly version: number
  readonly name: string
  readonly table: string
  readonly mode: string
  readonly heldMs: number
  /** What the lock stops while held. */
  readonly blocks: 'reads and writes' | 'writes' | 'nothing a request does'
}

export interface MigrationLockReport {
  readonly locks: readonly MigrationLock[]
  readonly notMeasured: readonly { readonly version: number; readonly name: string }[]
}

const BLOCKS: Readonly<Record<string, MigrationLock['blocks']>> = {
  AccessExclusiveLock: 'reads and writes',
  ExclusiveLock: 'writes',
  ShareRowExclusiveLock: 'writes',
  ShareLock: 'writes',
}

/** The indexes a migration's SQL creates with IF NOT EXISTS; undefined when it does anything else. */
function rebuildableIndexes(sql: string): string[] | undefined {
  const statements = sql
    .split('--> statement-breakpoint')
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement !== '')
  const indexes: string[] = []
  for (const statement of statements) {
    const created = /^CREATE INDEX IF NOT EXISTS "?(\w+)"?/i.exec(statement)
    if (created?.[1] !== undefined) indexes.push(created[1])
    else if (!/^DO \$\$/i.test(statement)) return undefined
  }
  return indexes.length > 0 ? indexes : undefined
}

/** Samples, every few milliseconds until `until` settles, the granted locks other client sessions (not autovacuum) hold on user tables. */
async function sampleLocks<T>(
  sampler: pg.Client,
  until: Promise<T>,
): Promise<{ result: T; locks: { table: string; mode: string; heldMs: number }[] }> {
  const seen = new Map<string, { table: string; mode: string; first: number }>()
  let running = true
  const sampling = (async () => {
    while (running) {
      const sampled = await sampler.query<{ table: string; mode: string }>(
        `select c.relname as table, l.mode from pg_locks l join pg_class c on c.oid = l.relation
           join pg_stat_activity a on a.pid = l.pid
          where l.pid <> pg_backend_pid() and a.backend_type = 'client backend' and l.granted
            and c.relkind = 'r' and c.relname like 'portcullis_%'`,
      )
      const at = performance.now()
      for (const row of sampled.rows) {
        const key = `${row.table} ${row.mode}`
        if (!seen.has(key)) seen.set(key, { ...row, first: at })
      }
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })()
  try {
    const result = await until
    // Every lock is held until its transaction ends, at the latest when `until` settled.
    const settled = performance.now()
    return { result, locks: [...seen.values()].map((lock) => ({ ...lock, heldMs: settled - lock.first })) }
  } finally {
    running = false
    await sampling
  }
}

/**
 * For each migration that only adds indexes: drops them and applies the migration's SQL again in one
 * transaction (`plain`, what migrate did before it built indexes concurrently), then drops them again and
 * runs `migrate(client)` with the version unrecorded (`migrate`).
 */
export async function measureMigrationLocks(
  connectionString: string,
  client: PostgresClient,
): Promise<MigrationLockReport> {
  const migrator = new pg.Client({ connectionString })
  const sampler = new pg.Client({ connectionString })
  await Promise.all([migrator.connect(), sampler.connect()])
  const locks: MigrationLock[] = []
  const notMeasured: { version: number; name: string }[] = []
  const record = (
    how: MigrationLock['how'],
    version: number,
    name: string,
    held: { table: string; mode: string; heldMs: number }[],
  ) => {
    for (const lock of held)
      locks.push({ how, version, name, ...lock, blocks: BLOCKS[lock.mode] ?? 'nothing a request does' })
  }
  try {
    for (const migration of MIGRATIONS) {
      const indexes = rebuildableIndexes(migration.sql)
      if (indexes === undefined) {
        notMeasured.push({ version: migration.version, name: migration.name })
        continue
      }
      await migrator.query(`drop index if exists ${indexes.join(', ')}`)
      const plain = await sampleLocks(
        sampler,
        (async () => {
          await migrator.query('begin')
          await migrator.query('set local statement_timeout = 0')
          await migrator.query(migration.sql)
          await migrator.query('commit')
        })(),
      )
      record('plain', migration.version, migration.name, plain.locks)
      await migrator.query(`drop index if exists ${indexes.join(', ')}`)
      await migrator.query(`delete from ${MIGRATIONS_TABLE} where version = $1`, [migration.version])
      const viaMigrate = await sampleLocks(sampler, migrate(client))
      if (!viaMigrate.result.applied.includes(migration.version)) throw new Error('migrate did not apply it')
      record('migrate', migration.version, migration.name, viaMigrate.locks)
    }
  } finally {
    await Promise.all([migrator.end(), sampler.end()])
  }
  return { locks, notMeasured }
}
