import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiKeyService } from '@portcullis/core/api-keys'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { createPostgresClient, PostgresApiKeyStore, type PostgresClient } from '@portcullis/postgres'
import { demoPassword } from '../../src/accounts/local-accounts.js'
import type { ReferenceConfig } from '../../src/config.js'
import { DEFAULT_MAIL_FROM } from '../../src/mail/mail-settings.js'
import { buildKeyMaterial, type KeyMaterial } from '../../src/secrets/key-material.js'
import { readSecretsFile } from '../../src/secrets/secrets-file.js'
import { type RunningReferenceApp, startReferenceApp } from '../../src/server.js'

/** A reference app started in-process on a fresh database, with its own temporary secrets. */
export interface TestApp {
  readonly running: RunningReferenceApp
  readonly url: string
  readonly config: ReferenceConfig
  readonly database: TestDatabase
  /** A separate client on the app's database, for seeding and checks. */
  readonly postgres: PostgresClient
  readonly keys: KeyMaterial
  /** Issues keys exactly as the app's API-key page does (same store, same pepper). */
  readonly apiKeys: ApiKeyService
  /** The password of a demo user (derived from the secrets file, as the app derives it). */
  password(username: string): string
  close(): Promise<void>
}

/**
 * The app's settings for a test: loopback, free ports, the test database, a temporary folder, and the
 * development mailbox (as `pnpm start` has it on loopback).
 */
export function testConfig(directory: string, databaseUrl: string): ReferenceConfig {
  return {
    host: '127.0.0.1',
    port: 0,
    databaseUrl,
    dataDir: join(directory, 'postgres'),
    secretsFile: join(directory, 'secrets.json'),
    demoIdp: { enabled: true, port: 0 },
    providers: [],
    trustedProxies: [],
    mail: { developmentMailbox: true, from: DEFAULT_MAIL_FROM },
  }
}

export async function startTestApp(
  /** Settings over `testConfig`; a function gets the test database's own (direct) URL. */
  overrides: Partial<ReferenceConfig> | ((directUrl: string) => Partial<ReferenceConfig>) = {},
  /** Rewrites the app's connection string, e.g. to go through a fault proxy (`proxy.through`). */
  throughDatabase: (connectionString: string) => string | Promise<string> = (connectionString) =>
    connectionString,
): Promise<TestApp> {
  const directory = await mkdtemp(join(tmpdir(), 'portcullis-reference-'))
  const database = await createTestDatabase()
  const config = {
    ...testConfig(directory, await throughDatabase(database.connectionString)),
    ...(typeof overrides === 'function' ? overrides(database.connectionString) : overrides),
  }
  const running = await startReferenceApp(config)
  const postgres = createPostgresClient({ connectionString: database.connectionString, maxConnections: 2 })
  const keys = await buildKeyMaterial(await readSecretsFile(config.secretsFile ?? ''))
  const apiKeys = new ApiKeyService({
    store: new PostgresApiKeyStore({ client: postgres }),
    peppers: keys.peppers,
    prefix: 'demo',
  })
  return {
    running,
    url: running.url,
    config,
    database,
    postgres,
    keys,
    apiKeys,
    password: (username) => demoPassword(keys.demoSessionKey, username),
    async close() {
      await running.close()
      await postgres.close()
      await database.close()
      await rm(directory, { recursive: true, force: true })
    },
  }
}

/**
 * A second instance of `app` on the same database, secrets and public URL (a load balancer in front of
 * both), without the demo identity provider the first one runs: what the two-instance tests start. Its
 * database connections carry `applicationName`. Close it before `app`.
 */
export function startSecondInstance(app: TestApp, applicationName: string): Promise<RunningReferenceApp> {
  return startReferenceApp({
    ...app.config,
    publicUrl: app.url,
    demoIdp: { enabled: false, port: 0 },
    databaseApplicationName: applicationName,
  })
}
