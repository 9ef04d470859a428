import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import {
  createPostgresClient,
  migrate,
  type PostgresClient,
  type PostgresRevocationNotices,
} from '@portcullis/postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { instanceClient, listenForRevocations } from '../../../../docs/examples/oauth/instance-names.js'

/**
 * What docs/oauth.md says about telling two instances' revocation listeners apart: each listener's row in
 * `pg_stat_activity` carries its instance's `application_name`, set with `applicationName` or with the
 * connection string's `application_name` parameter.
 */
let database: TestDatabase
let admin: PostgresClient
const opened: { postgres: PostgresClient; notices: PostgresRevocationNotices }[] = []

beforeAll(async () => {
  database = await createTestDatabase()
  admin = createPostgresClient({ connectionString: database.connectionString, maxConnections: 1 })
  await migrate(admin)
})

afterAll(async () => {
  for (const { postgres, notices } of opened) {
    await notices.close()
    await postgres.close()
  }
  await admin?.close()
  await database?.close()
})

async function instance(postgres: PostgresClient) {
  const notices = await listenForRevocations(postgres)
  opened.push({ postgres, notices })
  return notices
}

const nameOf = async (pid: number | undefined) => {
  const { rows } = await admin.pool.query<{ application_name: string }>(
    'select application_name from pg_stat_activity where pid = $1',
    [pid],
  )
  return rows[0]?.application_name
}

describe('telling the instances’ revocation listeners apart', () => {
  it('each listener shows its instance’s applicationName in pg_stat_activity', async () => {
    const a = await instance(instanceClient(database.connectionString, 'host-a/101'))
    const b = await instance(instanceClient(database.connectionString, 'host-b/202'))
    expect(a.listenerProcessId).not.toBe(b.listenerProcessId)
    await expect(nameOf(a.listenerProcessId)).resolves.toBe('billing-api/host-a/101')
    await expect(nameOf(b.listenerProcessId)).resolves.toBe('billing-api/host-b/202')
    const { rows } = await admin.pool.query<{ application_name: string }>(
      `select application_name from pg_stat_activity
       where datname = current_database() and application_name like 'billing-api/%' order by 1`,
    )
    expect(new Set(rows.map((row) => row.application_name))).toEqual(
      new Set(['billing-api/host-a/101', 'billing-api/host-b/202']),
    )
  })

  it('the connection string’s application_name parameter names it too (and wins over the option)', async () => {
    const url = new URL(database.connectionString)
    url.searchParams.set('application_name', 'billing-api-from-url')
    const notices = await instance(createPostgresClient({ connectionString: url.toString() }))
    await expect(nameOf(notices.listenerProcessId)).resolves.toBe('billing-api-from-url')
    const both = await instance(instanceClient(url.toString(), 'host-c/303'))
    await expect(nameOf(both.listenerProcessId)).resolves.toBe('billing-api-from-url')
  })
})
