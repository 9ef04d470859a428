import { migrationStatus } from '@portcullis/postgres'
import { type Arguments, onlyOptions } from './arguments.js'
import { type CliEnvironment, withDatabase } from './environment.js'

/** `migrations`: applied and pending versions; exit code 3 when some are pending (a deploy gate). */
export async function migrationsCommand(args: Arguments, cli: CliEnvironment): Promise<number> {
  onlyOptions(args, [])
  const status = await withDatabase(cli, (postgres) => migrationStatus(postgres), { allowPending: true })
  for (const migration of status.applied) {
    const changed = migration.unchanged ? '' : '  CHANGED since applied: migrate will refuse to run'
    cli.print(
      `applied  ${String(migration.version).padStart(4)}  ${migration.name}  ${migration.appliedAt.toISOString()}${changed}`,
    )
  }
  for (const migration of status.pending)
    cli.print(`pending  ${String(migration.version).padStart(4)}  ${migration.name}`)
  const latest = status.applied.at(-1)?.version ?? 0
  cli.print(
    status.pending.length === 0
      ? `schema current at version ${latest}`
      : `${status.pending.length} pending; the app applies them at its next start`,
  )
  return status.pending.length === 0 ? 0 : 3
}
