// An index a pending migration adds to an existing table is built with CREATE INDEX CONCURRENTLY before
// the migration transaction: writes to the table go on while it builds (a plain CREATE INDEX would hold
// them until it finished), and the migration then finds the index and records its version.
import { afterAll, describe, expect, it } from 'vitest'
import { MIGRATIONS, MIGRATIONS_TABLE, migrate } from '../src/index.js'
import { indexBuildsOf } from '../src/migrations/concurrent-indexes.js'
import { migratedDatabase } from './support/database.js'
import { pooledDatabase, withoutPgBouncer } from './support/pgbouncer.js'

const db = await migratedDatabase()
afterAll(() => db.close())

const LOOKUP_INDEXES = [
  'portcullis_api_keys_owner_idx',
  'portcullis_passkey_challenges_account_idx',
  'portcullis_step_up_credentials_account_idx',
]
const VERSION = MIGRATIONS.find((migration) => migration.name === 'store-lookup-indexes')?.version ?? -1

const insertKey = (id: string) =>
  `insert into portcullis_api_keys (key_id, owner_id, owner_kind, digest, pepper_version, restrictions, created_at)
   values ('${id}', 'owner-${id}', 'user', sha256('${id}'::bytea), 'p1', '{}'::jsonb, now())`

/** Puts the database back at the version before the lookup indexes, without them. */
async function beforeLookupIndexes(): Promise<void> {
  await db.client.pool.query(`drop index if exists ${LOOKUP_INDEXES.join(', ')}`)
  await db.client.pool.query(`delete from ${MIGRATIONS_TABLE} where version = $1`, [VERSION])
}

async function validIndexes(): Promise<string[]> {
  const result = await db.client.pool.query<{ name: string }>(
    `select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
      where c.relname = any($1) and i.indisvalid order by 1`,
    [LOOKUP_INDEXES],
  )
  return result.rows.map((row) => row.name)
}

describe('migrate builds the indexes of pending migrations concurrently', () => {
  it('reads the plain indexes a migration adds, with their tables, and nothing else', () => {
    const builds = MIGRATIONS.flatMap(indexBuildsOf)
    expect(builds.map((build) => `${build.table}.${build.name}`)).toEqual(
      expect.arrayContaining([
        'portcullis_sessions.portcullis_sessions_handle_tag_1_idx',
        'portcullis_sessions.portcullis_sessions_handle_tag_2_idx',
        'portcullis_api_keys.portcullis_api_keys_owner_idx',
      ]),
    )
    for (const build of builds)
      expect(build.concurrently).toMatch(/^CREATE INDEX CONCURRENTLY IF NOT EXISTS "/)
    expect(builds.some((build) => /DROP|DO \$\$/i.test(build.concurrently))).toBe(false)
  })

  it('lets writes to the table through while the index waits for an open writer, then records the version', async () => {
    await beforeLookupIndexes()
    const writer = db.connect(2)
    const held = await writer.pool.connect()
    try {
      await held.query('begin')
      await held.query(insertKey('open-writer'))
      const migrating = migrate(db.client)
      // The concurrent build waits for the open writer; a plain CREATE INDEX would wait too, holding a
      // SHARE lock that every later writer queues behind.
      await expect
        .poll(
          async () =>
            (
              await db.client.pool.query(
                `select count(*)::int as n from pg_stat_activity
                  where datname = current_database() and query ilike 'CREATE INDEX CONCURRENTLY%'
                    and wait_event_type = 'Lock'`,
              )
            ).rows[0]?.n,
          { timeout: 20_000, interval: 50 },
        )
        .toBe(1)
      const other = await writer.pool.connect()
      try {
        await other.query(`set lock_timeout = '2s'`)
        await other.query(insertKey('while-building'))
        expect(
          (await other.query('select count(*)::int as n from portcullis_api_keys')).rows[0]?.n,
        ).toBeGreaterThan(0)
      } finally {
        other.release()
      }
      await held.query('commit')
      expect(await migrating).toEqual({ applied: [VERSION], current: MIGRATIONS.at(-1)?.version })
    } finally {
      held.release()
    }
    expect(await validIndexes()).toEqual(LOOKUP_INDEXES)
    // The tables it built on are analyzed, so the planner has the new index's statistics at once.
    const analyzed = await db.client.pool.query<{ relname: string }>(
      `select relname from pg_stat_user_tables where relname = 'portcullis_api_keys' and last_analyze is not null`,
    )
    expect(analyzed.rows).toHaveLength(1)
  })

  it('two instances migrating at once: one builds and applies, the other finds nothing left', async () => {
    await beforeLookupIndexes()
    const reports = await Promise.all([migrate(db.client), migrate(db.connect(2))])
    expect(reports.map((report) => report.applied).sort()).toEqual([[], [VERSION]])
    expect(await validIndexes()).toEqual(LOOKUP_INDEXES)
  })

  it('an invalid index a failed concurrent build left is built again by the migration', async () => {
    await beforeLookupIndexes()
    // A concurrent build cancelled by a statement timeout leaves an invalid index of that name behind.
    const connection = await db.client.pool.connect()
    try {
      await connection.query(insertKey('for-invalid'))
      await connection.query(`set statement_timeout = '1ms'`)
      await connection
        .query(
          `create index concurrently portcullis_api_keys_owner_idx on portcullis_api_keys (owner_id, owner_kind)`,
        )
        .catch(() => undefined)
      await connection.query('reset statement_timeout')
    } finally {
      connection.release()
    }
    expect(await migrate(db.client)).toMatchObject({ applied: [VERSION] })
    expect(await validIndexes()).toEqual(LOOKUP_INDEXES)
  })
})

describe.skipIf(withoutPgBouncer !== undefined)('through PgBouncer in transaction mode', () => {
  it('builds them in the migration transaction instead: no session lock, nothing left on a server session', async () => {
    const pooled = await pooledDatabase()
    try {
      const direct = pooled.direct.client.pool
      await direct.query(`drop index if exists ${LOOKUP_INDEXES.join(', ')}`)
      await direct.query(`delete from ${MIGRATIONS_TABLE} where version = $1`, [VERSION])
      const client = pooled.pooled(2)
      expect(await migrate(client)).toMatchObject({ applied: [VERSION] })
      // No server session keeps the migration's advisory lock (in this database: test files running at
      // the same time on the same server take their own).
      const held = await direct.query(
        `select count(*)::int as n from pg_locks where locktype = 'advisory'
          and database = (select oid from pg_database where datname = current_database())`,
      )
      expect(held.rows[0]?.n).toBe(0)
      const valid = await direct.query<{ n: number }>(
        `select count(*)::int as n from pg_index i join pg_class c on c.oid = i.indexrelid
          where c.relname = any($1) and i.indisvalid`,
        [LOOKUP_INDEXES],
      )
      expect(valid.rows[0]?.n).toBe(LOOKUP_INDEXES.length)
    } finally {
      await pooled.close()
    }
  })
})
