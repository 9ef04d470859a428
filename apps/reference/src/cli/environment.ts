import { dirname, join } from 'node:path'
import { migrationStatus, type PostgresClient } from '@portcullis/postgres'
import type { ReferenceConfig } from '../config.js'
import { type LoadedSecrets, loadSecrets } from '../secrets/secret-source.js'
import { openStorage } from '../storage/storage.js'

/** What every command gets: the app's configuration and where to write. */
export interface CliEnvironment {
  readonly config: ReferenceConfig
  readonly env: NodeJS.ProcessEnv
  /** One line of the command's result (stdout). */
  readonly print: (line: string) => void
  /** Progress and notes (stderr). */
  readonly stderr: NodeJS.WriteStream
}

/** The secrets file path the app uses for this configuration. */
export function secretsPath(config: ReferenceConfig): string {
  return config.secretsFile ?? join(dirname(config.dataDir), 'secrets.json')
}

/** The app's secrets (the file is created on first use, exactly as `pnpm start` would). */
export function cliSecrets(cli: CliEnvironment): Promise<LoadedSecrets> {
  return loadSecrets(secretsPath(cli.config), cli.env)
}

/**
 * Runs `work` on the app's database (the embedded database is locked against the running app: stop it
 * first, or point both at one server with DATABASE_URL).
 * Unless `pending` is allowed, a database with migrations still to apply is refused: the CLI never
 * migrates behind the operator's back.
 */
export async function withDatabase<T>(
  cli: CliEnvironment,
  work: (postgres: PostgresClient) => Promise<T>,
  options: { readonly allowPending?: boolean } = {},
): Promise<T> {
  const storage = await openStorage(cli.config)
  try {
    if (options.allowPending !== true) {
      const status = await migrationStatus(storage.postgres)
      if (status.pending.length > 0) {
        throw new Error(
          `the database has ${status.pending.length} pending migration(s); start the app once (it migrates), or run pnpm exec portcullis-postgres migrate`,
        )
      }
    }
    return await work(storage.postgres)
  } finally {
    await storage.close()
  }
}
