import { argon2idPasswordHasher } from '@portcullis/argon2'
import {
  generateLocalSigningKey,
  LocalAccounts,
  type LocalAccountsOptions,
  type LocalAuthProfile,
  LocalSigningKeyRing,
  type SecurityEvent,
} from '@portcullis/core/local-accounts'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { createSecurity, localAccountRoutes } from '@portcullis/express'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  type PostgresClient,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
} from '@portcullis/postgres'
import express, { type Express } from 'express'

export const ORIGIN = 'https://app.example'
export const SAME_ORIGIN = { origin: ORIGIN, 'sec-fetch-site': 'same-origin' }
export const PASSWORD = 'correct horse battery staple'
export const SESSION_COOKIE = '__Host-portcullis-session'

/** A real argon2id hasher with small parameters (test speed), shared by every instance. */
export const hasher = argon2idPasswordHasher({
  memoryCostKiB: 1024,
  timeCost: 1,
  allowWeakParametersForTests: true,
})

export interface SharedDatabase {
  readonly database: TestDatabase
  readonly ring: LocalSigningKeyRing
  /** A new pool on the database, as another app instance would open. */
  connect(maxConnections?: number): PostgresClient
  close(): Promise<void>
}

/** A fresh migrated database on a real server, and one signing ring for every instance. */
export async function sharedDatabase(): Promise<SharedDatabase> {
  const database = await createTestDatabase()
  const clients: PostgresClient[] = []
  const connect = (maxConnections = 8) => {
    const client = createPostgresClient({ connectionString: database.connectionString, maxConnections })
    clients.push(client)
    return client
  }
  await migrate(connect(2))
  const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
  return {
    database,
    ring,
    connect,
    async close() {
      await Promise.all(clients.map((client) => client.close()))
      await database.close()
    },
  }
}

export interface Instance {
  readonly app: Express
  readonly local: LocalAccounts
  readonly events: SecurityEvent[]
}

/**
 * One app instance: its own pool, Postgres stores and `LocalAccounts` (caches are per instance), the
 * local-account routes and `GET/POST /api/me` for any local mechanism.
 */
export function instance(
  shared: SharedDatabase,
  profile: LocalAuthProfile,
  overrides: Partial<LocalAccountsOptions> = {},
): Instance {
  const client = shared.connect()
  const events: SecurityEvent[] = []
  const local = new LocalAccounts({
    profile,
    accounts: new PostgresAccountStore({ client }),
    sessions: new PostgresSessionStore({ client }),
    refreshTokens: new PostgresRefreshTokenStore({ client }),
    rateLimits: new PostgresRateLimitStore({ client }),
    hasher,
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    tokens: {
      ring: shared.ring,
      issuer: ORIGIN,
      audience: `${ORIGIN}/api`,
      jwksUri: `${ORIGIN}/auth/jwks.json`,
    },
    events: (event) => {
      events.push(event)
    },
    ...overrides,
  })
  const security = createSecurity({ mechanisms: local.mechanisms })
  const app = express()
  app.use(security.middleware)
  app.use(localAccountRoutes({ local, security }))
  const api = security.router({ prefix: '/api' })
  const me = (request: express.Request, response: express.Response) => {
    response.json({ id: request.security?.principal?.id })
  }
  api.get('/me', me)
  api.post('/me', me)
  app.use(api)
  return { app, local, events }
}

/** The `name=value` of the session cookie a response sets. */
export function sessionCookieOf(response: { headers: Record<string, unknown> }): string {
  const header = response.headers['set-cookie']
  const lines = Array.isArray(header) ? (header as string[]) : [String(header)]
  const line = lines.find((value) => value.startsWith(`${SESSION_COOKIE}=`))
  if (line === undefined) throw new Error('no session cookie')
  return line.split(';')[0] as string
}

/** A clock starting now that tests move forward. */
export function movableClock() {
  let offset = 0
  return Object.assign(() => Date.now() + offset, {
    advance(ms: number) {
      offset += ms
    },
  })
}
