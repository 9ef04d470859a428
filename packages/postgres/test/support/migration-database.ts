import { digestOpaqueToken, newOpaqueToken } from '@portcullis/core/local-accounts'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { afterAll } from 'vitest'
import { createPostgresClient, MIGRATIONS, MIGRATIONS_TABLE, type PostgresClient } from '../../src/index.js'
import { checksumOf } from '../../src/migrations/migrate.js'

/**
 * Applies the migrations up to `version` exactly as `migrate` records them: a database as an older
 * release left it, for a migration test to upgrade.
 */
export async function migrateThrough(client: PostgresClient, version: number): Promise<void> {
  await client.pool.query(`create table ${MIGRATIONS_TABLE} (
    version integer primary key, name text not null, checksum text not null,
    applied_at timestamptz not null default now())`)
  for (const migration of MIGRATIONS.filter((each) => each.version <= version)) {
    await client.pool.query(migration.sql)
    await client.pool.query(`insert into ${MIGRATIONS_TABLE} (version, name, checksum) values ($1, $2, $3)`, [
      migration.version,
      migration.name,
      checksumOf(migration),
    ])
  }
}

/** Every row of every Portcullis table (but the migrations table), as JSON, in a stable order. */
export async function everyRow(client: PostgresClient): Promise<Record<string, unknown[]>> {
  const tables = await client.pool.query<{ name: string }>(
    `select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_name like 'portcullis_%' and table_name <> $1
      order by table_name`,
    [MIGRATIONS_TABLE],
  )
  const rows: Record<string, unknown[]> = {}
  for (const { name } of tables.rows) {
    const result = await client.pool.query<{ rows: unknown[] }>(
      // Null columns are left out: a nullable column a later migration adds reads the same before and after.
      `select coalesce(jsonb_agg(jsonb_strip_nulls(to_jsonb(t)) order by to_jsonb(t)::text), '[]'::jsonb) as rows from "${name}" t`,
    )
    rows[name] = result.rows[0]?.rows ?? []
  }
  return rows
}

/** A session row as every release since migration 5 wrote it (the current store names later columns too). */
export interface OldSessionRow {
  readonly digest: string
  readonly handle: string
  readonly accountId: string
  readonly securityEpoch: number
  readonly createdAt: Date
  readonly lastSeenAt: Date
  readonly idleExpiresAt: Date
  readonly absoluteExpiresAt: Date
}

/** Writes a session into a database at an older version, naming only the columns it had then. */
export async function insertOldSession(client: PostgresClient, session: OldSessionRow): Promise<void> {
  await client.pool.query(
    `insert into portcullis_sessions (digest, handle, account_id, security_epoch, created_at, last_seen_at,
       idle_expires_at, absolute_expires_at) values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      session.digest,
      session.handle,
      session.accountId,
      session.securityEpoch,
      session.createdAt,
      session.lastSeenAt,
      session.idleExpiresAt,
      session.absoluteExpiresAt,
    ],
  )
}

/**
 * A live session of `accountId` at security epoch 1 for the opaque token `token`, as an older release
 * wrote it: created and last seen at `now`, expiring an hour (idle) and two hours (absolute) from the clock.
 */
export async function insertLiveOldSession(
  client: PostgresClient,
  { token, accountId, now }: { token: string; accountId: string; now: Date },
): Promise<void> {
  await insertOldSession(client, {
    digest: digestOpaqueToken(token),
    handle: newOpaqueToken(16),
    accountId,
    securityEpoch: 1,
    createdAt: now,
    lastSeenAt: now,
    idleExpiresAt: new Date(Date.now() + 3_600_000),
    absoluteExpiresAt: new Date(Date.now() + 7_200_000),
  })
}

/**
 * A fresh database of its own for a migration test, its client closed and the database dropped after
 * the file's tests.
 */
export async function migrationDatabase(maxConnections = 4): Promise<PostgresClient> {
  const database = await createTestDatabase()
  const client = createPostgresClient({ connectionString: database.connectionString, maxConnections })
  afterAll(async () => {
    await client.close()
    await database.close()
  })
  return client
}

/**
 * `after` split into the tables `before` had (`kept`) and those a migration created (`added`): a
 * migration test upgrades to the latest version, so later migrations' tables appear too.
 */
export function splitByTables(
  after: Record<string, unknown[]>,
  before: Record<string, unknown[]>,
): { kept: Record<string, unknown[]>; added: Record<string, unknown[]> } {
  const kept: Record<string, unknown[]> = {}
  const added: Record<string, unknown[]> = {}
  for (const [name, rows] of Object.entries(after)) (name in before ? kept : added)[name] = rows
  return { kept, added }
}
