import { isPortcullisError } from '@portcullis/core'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createPostgresClient,
  MIGRATIONS_TABLE,
  migrate,
  type PostgresClient,
  PostgresOAuthAccountStore,
} from '../src/index.js'
import { realProtector } from './support/database.js'

let database: TestDatabase
const clients: PostgresClient[] = []
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()))
  await database?.close()
})

function connect(schema?: string): PostgresClient {
  const client = createPostgresClient({
    connectionString: database.connectionString,
    maxConnections: 2,
    ...(schema === undefined ? {} : { schema }),
  })
  clients.push(client)
  return client
}

async function tablesIn(client: PostgresClient, schema: string): Promise<string[]> {
  const result = await client.pool.query<{ name: string }>(
    `select table_name as name from information_schema.tables
      where table_schema = $1 and table_name like 'portcullis_%' order by table_name`,
    [schema],
  )
  return result.rows.map((row) => row.name)
}

describe('the schema option', () => {
  it('keeps every table, the bookkeeping table included, in the named schema, created by migrate', async () => {
    const scoped = connect('portcullis_auth')
    const report = await migrate(scoped)
    expect(report.applied.length).toBeGreaterThan(0)
    const plain = connect()
    const inSchema = await tablesIn(plain, 'portcullis_auth')
    expect(inSchema).toContain(MIGRATIONS_TABLE)
    expect(inSchema).toContain('portcullis_accounts')
    expect(inSchema).toContain('portcullis_step_up_credentials')
    expect(await tablesIn(plain, 'public')).toEqual([])
    expect((await migrate(scoped)).applied).toEqual([])
  })

  it('stores read and write there, and a client on another schema sees none of it', async () => {
    const scoped = connect('portcullis_auth')
    await migrate(scoped)
    const store = new PostgresOAuthAccountStore({
      client: scoped,
      provider: 'example-idp',
      clientId: 'client-1',
      protector: realProtector(),
    })
    const login = await store.login({
      identity: { provider: 'example-idp', issuer: 'https://idp.example/', subject: 'schema-person' },
      grant: { scopes: ['openid'] },
      provisionUnknown: true,
      now: new Date('2031-01-01T00:00:00Z'),
    })
    const rows = await connect().pool.query<{ n: number }>(
      'select count(*)::int as n from portcullis_auth.portcullis_accounts where account_id = $1',
      [login.link.accountId],
    )
    expect(rows.rows).toEqual([{ n: 1 }])
    const other = connect('portcullis_other')
    await migrate(other)
    const elsewhere = new PostgresOAuthAccountStore({
      client: other,
      provider: 'example-idp',
      clientId: 'client-1',
      protector: realProtector(),
    })
    expect(await elsewhere.getAccount(login.link.accountId)).toBeNull()
  })
})

describe('the schema option, checked', () => {
  it('refuses a schema name that is not a plain lower-case identifier, before connecting', () => {
    for (const schema of ['', 'Auth', 'auth; drop table x', '1auth', 'a'.repeat(64), 'auth-x', 'public.x']) {
      let error: unknown
      try {
        createPostgresClient({ connectionString: database.connectionString, schema })
      } catch (caught) {
        error = caught
      }
      expect(isPortcullisError(error) && [error.code, error.errorClass]).toEqual([
        'postgres.schema',
        'configuration',
      ])
    }
  })
})
