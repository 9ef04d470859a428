import { resolve } from 'node:path'

export interface ReferenceConfig {
  readonly host: string
  readonly port: number
  /** A Postgres server to use; when absent, embedded PGlite stores data under `dataDir`. */
  readonly databaseUrl?: string
  readonly dataDir: string
}

/** Reads the app's settings from the environment, refusing values that cannot work. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ReferenceConfig {
  const port = Number(env.PORT ?? '3000')
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error('PORT must be an integer between 0 and 65535')
  }
  const databaseUrl = env.DATABASE_URL?.trim()
  return {
    host: env.HOST ?? '127.0.0.1',
    port,
    dataDir: resolve(env.PORTCULLIS_DATA_DIR ?? '.data/pglite'),
    ...(databaseUrl ? { databaseUrl } : {}),
  }
}
