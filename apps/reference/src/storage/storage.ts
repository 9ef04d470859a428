import { stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { startEmbeddedPostgres } from '@portcullis/database-tooling/embedded'
import { createPostgresClient, type PostgresClient } from '@portcullis/postgres'
import { lockDataDir } from './data-lock.js'

/** The app's database: a Postgres client, what it is (for humans), and how to stop it. */
export interface Storage {
  readonly postgres: PostgresClient
  /** What the revocation listener needs beside the client: its own server URL, its application name. */
  readonly listener: { readonly connectionString?: string; readonly applicationName: string }
  /** Never a connection string with credentials. */
  readonly description: string
  readonly embedded: boolean
  /** Things the operator should know about the data folder (one line each). */
  readonly notices: readonly string[]
  close(): Promise<void>
}

export interface StorageSettings {
  readonly databaseUrl?: string
  readonly databaseListenerUrl?: string
  readonly databasePooler?: 'none' | 'transaction'
  readonly databaseApplicationName?: string
  readonly dataDir: string
  readonly databasePool?: { readonly maxConnections?: number; readonly connectionTimeoutMs?: number }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

/** The folder an earlier version kept its PGlite data in, beside today's data folder. */
async function legacyPgliteNotice(dataDir: string): Promise<string[]> {
  const legacy = join(dirname(dataDir), 'pglite')
  if (legacy === dataDir || !(await stat(legacy).catch(() => undefined))) return []
  return [
    `an earlier version's PGlite data is in ${legacy}; this version keeps its data in embedded PostgreSQL in ${dataDir} and does not read it (nothing was imported): delete ${legacy} once you no longer need it`,
  ]
}

const DEFAULT_APPLICATION_NAME = 'portcullis-reference'

function listenerOf(settings: StorageSettings, connectionString: string | undefined): Storage['listener'] {
  const applicationName = `${settings.databaseApplicationName ?? DEFAULT_APPLICATION_NAME}-listener`
  return connectionString === undefined ? { applicationName } : { connectionString, applicationName }
}

function clientOptions(settings: StorageSettings, connectionString: string) {
  return {
    connectionString,
    applicationName: settings.databaseApplicationName ?? DEFAULT_APPLICATION_NAME,
    ...(settings.databasePooler === 'transaction' ? { pooler: 'transaction' as const } : {}),
    maxConnections: settings.databasePool?.maxConnections ?? 10,
    ...(settings.databasePool?.connectionTimeoutMs === undefined
      ? {}
      : { connectionTimeoutMs: settings.databasePool.connectionTimeoutMs }),
  }
}

/**
 * Opens the server at `databaseUrl`, or a real PostgreSQL server started from npm packages with its
 * data under `dataDir` (locked against a second process). Everything started is stopped again when a
 * later step fails.
 */
export async function openStorage(settings: StorageSettings): Promise<Storage> {
  if (settings.databaseUrl) {
    const postgres = createPostgresClient(clientOptions(settings, settings.databaseUrl))
    return {
      postgres,
      listener: listenerOf(settings, settings.databaseListenerUrl),
      description:
        settings.databasePooler === 'transaction'
          ? 'Postgres from DATABASE_URL (through a pooler in transaction mode; listener on DATABASE_LISTENER_URL)'
          : settings.databaseListenerUrl === undefined
            ? 'Postgres from DATABASE_URL'
            : 'Postgres from DATABASE_URL (listener on DATABASE_LISTENER_URL)',
      embedded: false,
      notices: [],
      close: () => postgres.close(),
    }
  }
  const lock = await lockDataDir(settings.dataDir)
  let embedded: Awaited<ReturnType<typeof startEmbeddedPostgres>>
  try {
    embedded = await startEmbeddedPostgres({ dataDir: settings.dataDir })
  } catch (error) {
    await lock.release()
    throw error
  }
  const postgres = createPostgresClient(clientOptions(settings, embedded.connectionString))
  const notices = await legacyPgliteNotice(settings.dataDir)
  if (embedded.recovered === 'server-left-running') {
    notices.push(
      'a server left running by an earlier start (the app was killed) was stopped and started again',
    )
  } else if (embedded.recovered === 'stale-pid-file') {
    notices.push('the database was not shut down cleanly last time; PostgreSQL recovered it from its log')
  }
  const first =
    embedded.initialisedInMs === undefined
      ? ''
      : `; first start, initdb took ${seconds(embedded.initialisedInMs)}`
  let closed: Promise<void> | undefined
  return {
    postgres,
    listener: listenerOf(settings, undefined),
    description: `embedded PostgreSQL in ${settings.dataDir}${first}`,
    embedded: true,
    notices,
    close() {
      closed ??= postgres
        .close()
        .then(() => embedded.stop())
        .finally(() => lock.release())
      return closed
    },
  }
}
