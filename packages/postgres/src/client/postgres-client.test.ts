import { ConfigurationError } from '@portcullis/core'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresClient } from './postgres-client.js'

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await database?.close()
})

describe('createPostgresClient', () => {
  it('connects through pg and drizzle to a real Postgres', async () => {
    const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 2 })
    try {
      expect(await client.ping()).toBe(true)
      await client.db.execute(sql`create table wiring (id serial primary key, note text not null)`)
      await client.db.execute(sql`insert into wiring (note) values (${'first'}), (${'second'})`)
      const result = await client.db.execute<{ note: string }>(sql`select note from wiring order by id`)
      expect(result.rows.map((row) => row.note)).toEqual(['first', 'second'])
      const app = await client.pool.query<{ name: string }>(
        "select current_setting('application_name') as name",
      )
      expect(app.rows[0]?.name).toBe('portcullis')
    } finally {
      await client.close()
      await client.close()
    }
  })

  it('refuses a connection string that is not a postgres URL, without echoing it', () => {
    const attempt = () => createPostgresClient({ connectionString: 'mysql://root:s3cret@db/x' })
    expect(attempt).toThrow(ConfigurationError)
    expect(attempt).toThrow(/postgres: scheme/)
    try {
      attempt()
    } catch (error) {
      expect(String((error as Error).message)).not.toContain('s3cret')
    }
    expect(() => createPostgresClient({ connectionString: 'not a url' })).toThrow(ConfigurationError)
  })

  it("pooler: 'transaction' sends no statement_timeout at connect, prepares no named statement, refuses what a pooler cannot keep", async () => {
    const pooled = createPostgresClient({
      connectionString: database.connectionString,
      maxConnections: 1,
      pooler: 'transaction',
    })
    try {
      expect(pooled.pooler).toBe('transaction')
      expect(pooled.preparedStatements).toBe(false)
      // The server's default applies (no startup parameter); a direct client sends its own.
      const timeout = await pooled.pool.query<{ value: string }>(
        "select current_setting('statement_timeout') as value",
      )
      expect(timeout.rows[0]?.value).toBe('0')
    } finally {
      await pooled.close()
    }
    const direct = createPostgresClient({ connectionString: database.connectionString, maxConnections: 1 })
    try {
      expect([direct.pooler, direct.preparedStatements]).toEqual(['none', true])
      const timeout = await direct.pool.query<{ value: string }>(
        "select current_setting('statement_timeout') as value",
      )
      expect(timeout.rows[0]?.value).toBe('10s')
    } finally {
      await direct.close()
    }
    const base = { connectionString: database.connectionString }
    expect(() => createPostgresClient({ ...base, pooler: 'transaction', preparedStatements: true })).toThrow(
      /preparedStatements cannot be true/,
    )
    expect(() => createPostgresClient({ ...base, pooler: 'transaction', schema: 'app' })).toThrow(
      ConfigurationError,
    )
    expect(() => createPostgresClient({ ...base, pooler: 'session' as 'none' })).toThrow(ConfigurationError)
  })
})
