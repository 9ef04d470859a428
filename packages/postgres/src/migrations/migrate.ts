import { createHash } from 'node:crypto'
import { ConfigurationError, InvalidInputError } from '@portcullis/core'
import type { PoolClient, QueryConfig, QueryResultRow } from 'pg'
import { asStoreError, PostgresUnavailableError, sqlStateOf } from '../client/database-error.js'
import type { PostgresClient } from '../client/postgres-client.js'
import { withConnection } from '../client/transaction.js'
import { oauthAccounts } from './0001-oauth-accounts.js'
import { stepUp } from './0002-step-up.js'
import { apiKeys } from './0003-api-keys.js'
import { oauthTransactions } from './0004-oauth-transactions.js'
import { localAccounts } from './0005-local-accounts.js'
import { buildIndexesConcurrently, missingIndexBuilds } from './concurrent-indexes.js'
import { generatedMigrations } from './generated.js'
import type { Migration } from './migration.js'

/** The migrations written by hand before drizzle-kit generated them; the baseline covers exactly these. */
const HAND_WRITTEN: readonly Migration[] = [oauthAccounts, stepUp, apiKeys, oauthTransactions, localAccounts]

/**
 * Every migration of this package, oldest first: the hand-written ones, then those drizzle-kit generated
 * from the table definitions (`drizzle/`). Published migrations are never edited.
 */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  ...HAND_WRITTEN,
  ...generatedMigrations(HAND_WRITTEN.length),
])

/** How long one migration statement may take before the client gives up on the connection. */
const MIGRATION_READ_TIMEOUT_MS = 6 * 3_600_000

/** The table that records applied versions. */
export const MIGRATIONS_TABLE = 'portcullis_schema_migrations'

/**
 * Key of the transaction-scoped advisory lock `migrate` holds: concurrent instances queue on it, so
 * exactly one applies the pending migrations and the others find nothing left to do.
 */
export const MIGRATION_LOCK_KEY = '7053289423521013553'

export interface MigrateOptions {
  /** How long to wait for another instance that is migrating, in milliseconds. Default 60 000. */
  readonly lockTimeoutMs?: number
}

export interface MigrationReport {
  /** Versions this call applied, oldest first; empty when the schema was already current. */
  readonly applied: readonly number[]
  /** The highest version recorded after this call. */
  readonly current: number
}

/** SHA-256 (hex) of a migration's SQL, as recorded when it is applied. */
export function checksumOf(migration: Migration): string {
  return createHash('sha256').update(migration.sql, 'utf8').digest('hex')
}

/**
 * Brings the schema up to date in ONE transaction under an advisory lock: creates the migrations
 * table if needed, refuses to run when an applied migration's SQL has changed since, and applies the
 * missing versions in order. Idempotent; safe to call from every app instance at startup. Before that
 * transaction, indexes pending migrations add to existing tables are built with CREATE INDEX CONCURRENTLY
 * (not through a pooler in transaction mode), so writes to large tables go on meanwhile.
 */
export async function migrate(
  client: Pick<PostgresClient, 'pool' | 'schema'> & { readonly pooler?: PostgresClient['pooler'] },
  options: MigrateOptions = {},
): Promise<MigrationReport> {
  const lockTimeoutMs = options.lockTimeoutMs ?? 60_000
  if (!Number.isSafeInteger(lockTimeoutMs) || lockTimeoutMs < 1 || lockTimeoutMs > 3_600_000) {
    throw new InvalidInputError('postgres.migrate_options', 'lockTimeoutMs must be 1..3600000')
  }
  try {
    // Through a pooler in transaction mode no session state survives a statement: the indexes are then
    // built inside the migration transaction, as its SQL says.
    if (client.pooler !== 'transaction') {
      await withConnection(client.pool, async (connection, discard) => {
        try {
          await buildPendingIndexes(connection, lockTimeoutMs)
        } catch (error) {
          // Never hand back a connection that may still hold the session-level migration lock.
          discard()
          throw error
        }
      })
    }
    return await withConnection(client.pool, async (connection, discard) => {
      try {
        return await applyPending(connection, lockTimeoutMs, client.schema)
      } catch (error) {
        // A connection that cannot even roll back is destroyed instead of going back to the pool.
        await connection.query('rollback').catch(discard)
        throw error
      }
    })
  } catch (error) {
    if (sqlStateOf(error) === '55P03') {
      throw new PostgresUnavailableError('timed out waiting for another instance to finish migrating', {
        cause: error,
      })
    }
    throw asStoreError(error)
  }
}

/** The connection with the pool's client-side read timeout lifted: a migration may legitimately run long. */
function longRunning(pooled: PoolClient) {
  return {
    query: <R extends QueryResultRow>(text: string, values: unknown[] = []) => {
      // `query_timeout` per query is honoured by pg but missing from its type.
      const config: QueryConfig = Object.assign(
        { text, values },
        { query_timeout: MIGRATION_READ_TIMEOUT_MS },
      )
      return pooled.query<R>(config)
    },
  }
}

/**
 * Outside any transaction, under the migration lock held at session level: builds the plain indexes that
 * pending migrations add to existing tables with CREATE INDEX CONCURRENTLY (see concurrent-indexes.ts),
 * so a large table never stops taking writes while one builds.
 */
async function buildPendingIndexes(pooled: PoolClient, lockTimeoutMs: number): Promise<void> {
  const connection = longRunning(pooled)
  const pending = async () => {
    const exists = await connection.query<{ table: string | null }>('select to_regclass($1)::text as table', [
      MIGRATIONS_TABLE,
    ])
    if (exists.rows[0]?.table === null) return []
    const recorded = await connection.query<{ version: number }>(`select version from ${MIGRATIONS_TABLE}`)
    const applied = new Set(recorded.rows.map((row) => row.version))
    return MIGRATIONS.filter((migration) => !applied.has(migration.version))
  }
  // Nothing to build (the usual start): no lock taken here, the migration transaction waits as ever.
  if ((await missingIndexBuilds(connection, await pending())).length === 0) return
  // Polled, not waited for: a session blocked in pg_advisory_lock holds a snapshot, and a concurrent
  // index build waits for every older snapshot, so two instances would deadlock.
  const giveUpAt = Date.now() + lockTimeoutMs
  for (;;) {
    const tried = await connection.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [
      MIGRATION_LOCK_KEY,
    ])
    if (tried.rows[0]?.locked === true) break
    if (Date.now() >= giveUpAt) {
      throw new PostgresUnavailableError('timed out waiting for another instance to finish migrating')
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  try {
    await connection.query('set statement_timeout = 0')
    // Another instance may have applied them while this one waited.
    await buildIndexesConcurrently(connection, await pending())
  } finally {
    await connection.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
    await connection.query('reset statement_timeout')
  }
}

async function applyPending(
  pooled: PoolClient,
  lockTimeoutMs: number,
  schema: string | undefined,
): Promise<MigrationReport> {
  const connection = longRunning(pooled)
  await connection.query('begin')
  await connection.query(`set local lock_timeout = ${lockTimeoutMs}`)
  await connection.query('set local statement_timeout = 0')
  await connection.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY])
  // The name was checked against [a-z_][a-z0-9_]* when the client was created.
  if (schema !== undefined) await connection.query(`create schema if not exists ${schema}`)
  await connection.query(`create table if not exists ${MIGRATIONS_TABLE} (
    version integer primary key,
    name text not null,
    checksum text not null,
    applied_at timestamptz not null default now()
  )`)
  const recorded = await connection.query<{ version: number; checksum: string }>(
    `select version, checksum from ${MIGRATIONS_TABLE} order by version`,
  )
  const applied = new Map(recorded.rows.map((row) => [row.version, row.checksum]))
  for (const migration of MIGRATIONS) {
    const known = applied.get(migration.version)
    if (known !== undefined && known !== checksumOf(migration)) {
      throw new ConfigurationError(
        'postgres.migration_modified',
        `migration ${migration.version} (${migration.name}) changed after it was applied`,
      )
    }
  }
  const pending = MIGRATIONS.filter((migration) => !applied.has(migration.version))
  for (const migration of pending) {
    await connection.query(migration.sql)
    await connection.query(`insert into ${MIGRATIONS_TABLE} (version, name, checksum) values ($1, $2, $3)`, [
      migration.version,
      migration.name,
      checksumOf(migration),
    ])
  }
  await connection.query('commit')
  const versions = [...applied.keys(), ...pending.map((migration) => migration.version)]
  return { applied: pending.map((migration) => migration.version), current: Math.max(0, ...versions) }
}
