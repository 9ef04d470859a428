import { asStoreError } from '../client/database-error.js'
import type { PostgresClient } from '../client/postgres-client.js'
import { withConnection } from '../client/transaction.js'
import { checksumOf, MIGRATIONS, MIGRATIONS_TABLE } from '../migrations/migrate.js'

export interface AppliedMigration {
  readonly version: number
  readonly name: string
  readonly appliedAt: Date
  /** False when the SQL of this version changed after it was applied (`migrate` refuses to run then). */
  readonly unchanged: boolean
}

export interface MigrationStatus {
  /** Versions recorded in the database, oldest first (including ones this package no longer knows). */
  readonly applied: readonly AppliedMigration[]
  /** Versions this package has that the database has not applied yet, oldest first. */
  readonly pending: readonly { readonly version: number; readonly name: string }[]
}

/** What `migrate` would do, without doing it: read-only, takes no lock. */
export async function migrationStatus(client: Pick<PostgresClient, 'pool'>): Promise<MigrationStatus> {
  try {
    return await withConnection(client.pool, async (connection) => {
      const exists = await connection.query<{ present: boolean }>(
        'select to_regclass($1) is not null as present',
        [MIGRATIONS_TABLE],
      )
      const rows = exists.rows[0]?.present
        ? (
            await connection.query<{ version: number; name: string; checksum: string; applied_at: Date }>(
              `select version, name, checksum, applied_at from ${MIGRATIONS_TABLE} order by version`,
            )
          ).rows
        : []
      const known = new Map(MIGRATIONS.map((migration) => [migration.version, migration]))
      const applied = rows.map((row) => {
        const migration = known.get(row.version)
        return {
          version: row.version,
          name: row.name,
          appliedAt: row.applied_at,
          unchanged: migration === undefined || checksumOf(migration) === row.checksum,
        }
      })
      const done = new Set(rows.map((row) => row.version))
      const pending = MIGRATIONS.filter((migration) => !done.has(migration.version)).map(
        ({ version, name }) => ({ version, name }),
      )
      return { applied, pending }
    })
  } catch (error) {
    throw asStoreError(error)
  }
}
