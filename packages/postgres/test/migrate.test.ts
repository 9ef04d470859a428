import { createHash } from 'node:crypto'
import { isPortcullisError } from '@portcullis/core'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core'
import { afterAll, describe, expect, it } from 'vitest'
import { accountsTable, passwordsTable } from '../src/accounts/tables.js'
import {
  createPostgresClient,
  MIGRATION_LOCK_KEY,
  MIGRATIONS,
  MIGRATIONS_TABLE,
  migrate,
  type PostgresClient,
} from '../src/index.js'
import { linksTable, retriesTable, vaultTable } from '../src/oauth-accounts/tables.js'
import { stepUpTable } from '../src/step-up/tables.js'

const VERSIONS = MIGRATIONS.map((migration) => migration.version)
const LATEST = VERSIONS.at(-1)
const database = await createTestDatabase()
const clients: PostgresClient[] = []
const connect = (maxConnections = 2) => {
  const client = createPostgresClient({ connectionString: database.connectionString, maxConnections })
  clients.push(client)
  return client
}

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()))
  await database.close()
})

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
    return undefined
  } catch (error) {
    return isPortcullisError(error) ? error.code : `<${String(error)}>`
  }
}

describe('migrate', () => {
  it('applies every version once when several instances start at the same time', async () => {
    const reports = await Promise.all(
      [connect(), connect(), connect(), connect()].map((client) => migrate(client)),
    )
    const appliers = reports.filter((report) => report.applied.length > 0)
    expect(appliers).toHaveLength(1)
    expect(appliers[0]?.applied).toEqual(VERSIONS)
    for (const report of reports) expect(report.current).toBe(LATEST)
    const recorded = await connect().pool.query(
      `select version, name from ${MIGRATIONS_TABLE} order by version`,
    )
    expect(recorded.rows).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })))
    expect(recorded.rows.slice(0, 4)).toEqual([
      { version: 1, name: 'oauth-accounts' },
      { version: 2, name: 'step-up' },
      { version: 3, name: 'api-keys' },
      { version: 4, name: 'oauth-transactions' },
    ])
  })

  it('is idempotent: a second run applies nothing', async () => {
    expect(await migrate(connect())).toEqual({ applied: [], current: LATEST })
  })

  it('creates exactly the columns the drizzle tables query', async () => {
    const client = connect()
    const tables: PgTable[] = [
      accountsTable,
      passwordsTable,
      linksTable,
      vaultTable,
      retriesTable,
      stepUpTable,
    ]
    for (const table of tables) {
      const config = getTableConfig(table)
      const result = await client.pool.query<{ column_name: string; is_nullable: 'YES' | 'NO' }>(
        'select column_name, is_nullable from information_schema.columns where table_name = $1',
        [config.name],
      )
      const actual = Object.fromEntries(result.rows.map((row) => [row.column_name, row.is_nullable === 'NO']))
      const declared = Object.fromEntries(config.columns.map((column) => [column.name, column.notNull]))
      expect(actual, config.name).toEqual(declared)
    }
  })

  it('refuses to run when an applied migration was edited, and changes nothing', async () => {
    const client = connect()
    await client.pool.query(`update ${MIGRATIONS_TABLE} set checksum = 'edited' where version = 1`)
    expect(await codeOf(migrate(client))).toBe('postgres.migration_modified')
    const { rows } = await client.pool.query(`select count(*)::int as count from ${MIGRATIONS_TABLE}`)
    expect(rows[0]?.count).toBe(VERSIONS.length)
    const original = createHash('sha256')
      .update(MIGRATIONS[0]?.sql ?? '', 'utf8')
      .digest('hex')
    await client.pool.query(`update ${MIGRATIONS_TABLE} set checksum = $1 where version = 1`, [original])
    expect(await migrate(client)).toEqual({ applied: [], current: LATEST })
  })

  it('fails as postgres.unavailable, without secrets, when the server cannot be reached', async () => {
    const unreachable = createPostgresClient({
      connectionString: 'postgres://portcullis:s3cret-password@127.0.0.1:1/nowhere',
      maxConnections: 1,
    })
    clients.push(unreachable)
    const error = await migrate(unreachable).catch((caught: unknown) => caught)
    expect(isPortcullisError(error) && error.code).toBe('postgres.unavailable')
    expect(isPortcullisError(error) && error.errorClass).toBe('unavailable')
    expect(String(error)).not.toContain('s3cret')
    expect(JSON.stringify(error)).not.toContain('s3cret')
  })

  it('gives up after lockTimeoutMs while another instance migrates', async () => {
    const holder = await connect().pool.connect()
    try {
      await holder.query('begin')
      await holder.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY])
      expect(await codeOf(migrate(connect(), { lockTimeoutMs: 200 }))).toBe('postgres.unavailable')
    } finally {
      await holder.query('rollback')
      holder.release()
    }
  })

  it('refuses a lock timeout that is not a positive integer', async () => {
    expect(await codeOf(migrate(connect(), { lockTimeoutMs: 0 }))).toBe('postgres.migrate_options')
    expect(await codeOf(migrate(connect(), { lockTimeoutMs: 1.5 }))).toBe('postgres.migrate_options')
  })
})
