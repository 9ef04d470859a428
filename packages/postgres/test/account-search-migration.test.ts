// The account-search migration (two expression indexes in code-point order) on a database one version
// older holding accounts, passwords and addresses: every row is the same afterwards, the indexes exist
// and are valid, and searches find the accounts that were there before.
import { randomUUID } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { MIGRATIONS, migrate, PostgresAccountStore, type PostgresClient } from '../src/index.js'
import { everyRow, migrateThrough, migrationDatabase, splitByTables } from './support/migration-database.js'

const VERSION = MIGRATIONS.find((migration) => migration.name === 'account-search')?.version ?? -1
const NOW = new Date('2026-12-02T05:00:00.000Z')
const client: PostgresClient = await migrationDatabase(2)

const HASH = (label: string) => `$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$${label.padEnd(43, 'A')}`
const ids = { alice: randomUUID(), albert: randomUUID() }
let before: Record<string, unknown[]> = {}
let after: Record<string, unknown[]> = {}

describe(`migration ${VERSION} (account search) on a database at version ${VERSION - 1}`, () => {
  beforeAll(async () => {
    expect(VERSION).toBeGreaterThan(1)
    await migrateThrough(client, VERSION - 1)
    for (const [name, accountId] of Object.entries(ids)) {
      await client.pool.query(
        `insert into portcullis_accounts (account_id, security_epoch, status, created_at, updated_at)
          values ($1, 1, 'active', $2, $2)`,
        [accountId, NOW],
      )
      await client.pool.query(
        `insert into portcullis_passwords (account_id, username, password_hash, created_at, updated_at, password_changed_at)
          values ($1, $2, $3, $4, $4, $4)`,
        [accountId, name, HASH(name), NOW],
      )
      await client.pool.query(
        `insert into portcullis_email_addresses (account_id, address, verified_at, is_primary, created_at)
          values ($1, $2, $3, true, $3)`,
        [accountId, `${name}@example.com`, NOW],
      )
    }
    before = await everyRow(client)
    const report = await migrate(client)
    expect(report.applied).toEqual(MIGRATIONS.filter((m) => m.version >= VERSION).map((m) => m.version))
    after = await everyRow(client)
  })

  it('keeps every row, and adds no table but empty ones of later migrations', () => {
    const { kept, added } = splitByTables(after, before)
    expect(kept).toEqual(before)
    expect(before.portcullis_email_addresses).toHaveLength(2)
    for (const rows of Object.values(added)) expect(rows).toEqual([])
  })

  it('adds both indexes, valid', async () => {
    const indexes = await client.pool.query<{ name: string; valid: boolean }>(
      `select c.relname as name, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
        where c.relname in ('portcullis_passwords_username_c_idx', 'portcullis_email_addresses_address_c_idx')
        order by c.relname`,
    )
    expect(indexes.rows).toEqual([
      { name: 'portcullis_email_addresses_address_c_idx', valid: true },
      { name: 'portcullis_passwords_username_c_idx', valid: true },
    ])
  })

  it('finds the accounts that were there before', async () => {
    const store = new PostgresAccountStore({ client })
    const hits = await store.searchAccounts({ by: 'prefix', value: 'al' })
    expect(hits.map((hit) => `${hit.matched}:${hit.username}:${hit.email}`)).toEqual([
      'username:albert:albert@example.com',
      'email:albert:albert@example.com',
      'username:alice:alice@example.com',
      'email:alice:alice@example.com',
    ])
  })
})
