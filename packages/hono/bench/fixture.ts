// What the Hono and fetch-form benches share: one Postgres database with a signed-in account (a session
// cookie and an access token of the hybrid profile), an API key, the payload, and serving a fetch handler
// on `@hono/node-server`.
import { randomBytes, scrypt } from 'node:crypto'
import { type ServerType, serve } from '@hono/node-server'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ApiKeyPepperRing, ApiKeyService, MemoryApiKeyStore } from '@portcullis/core/api-keys'
import {
  generateLocalSigningKey,
  LocalAccounts,
  LocalSigningKeyRing,
  type PasswordHasher,
} from '@portcullis/core/local-accounts'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
} from '@portcullis/postgres'

const ORIGIN = 'https://bench.example'

export const body = {
  service: 'billing',
  features: Array.from({ length: 20 }, (_, index) => ({ id: `feature-${index}`, enabled: index % 3 !== 0 })),
}
export const resourceText = JSON.stringify(body)

// Sign-ins are made once, before measuring: a cheap real hasher keeps the setup short.
const hasher: PasswordHasher = {
  hash: async (password) =>
    new Promise((resolve, reject) =>
      scrypt(password, 'bench-salt', 32, { N: 1024 }, (error, key) =>
        error ? reject(error) : resolve(key.toString('base64url')),
      ),
    ),
  verify: async () => true,
  needsRehash: () => false,
}

/** The hybrid profile on Postgres (mechanisms `session` and `bearer`), one account signed in both ways. */
export async function credentials() {
  const database = await createTestDatabase()
  const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 10 })
  await migrate(client)
  const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
  const local = new LocalAccounts({
    profile: 'hybrid',
    accounts: new PostgresAccountStore({ client }),
    sessions: new PostgresSessionStore({ client }),
    refreshTokens: new PostgresRefreshTokenStore({ client }),
    rateLimits: new PostgresRateLimitStore({ client }),
    hasher,
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    tokens: { ring, issuer: ORIGIN, audience: `${ORIGIN}/api`, jwksUri: `${ORIGIN}/auth/jwks.json` },
  })
  const { accountId } = await local.register({ username: 'bench', password: 'correct horse battery staple' })
  const signIn = await local.establishSignIn({ accountId, transport: 'session' })
  const pair = await local.establishSignIn({ accountId, transport: 'tokens' })
  const keys = new ApiKeyService({
    store: new MemoryApiKeyStore(),
    peppers: new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }),
    prefix: 'bench',
  })
  const issued = await keys.issue({ ownerId: 'svc-bench' })
  return {
    local,
    keys,
    cookie: signIn.transport === 'session' ? (signIn.setCookie.split(';')[0] as string) : '',
    accessToken: pair.transport === 'tokens' ? pair.access_token : '',
    apiKey: issued.value,
    async close() {
      await client.close()
      await database.close()
    },
  }
}

/** Registers the resource the SDK servers read: the same text the marked route answers. */
export function registerConfig(server: { registerResource: McpServer['registerResource'] }): void {
  server.registerResource('config', 'hono://config', { mimeType: 'application/json' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: resourceText }],
  }))
}

export interface Served {
  readonly url: string
  close(): Promise<void>
}

/** Serves a fetch handler with `@hono/node-server` on a free loopback port. */
export function serveFetch(fetch: (request: Request, env?: unknown) => Response | Promise<Response>) {
  return new Promise<Served>((resolve) => {
    const server: ServerType = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () => {
          ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
          return new Promise((done) => server.close(() => done()))
        },
      }),
    )
  })
}
