// The Express adapter against what an Express user runs (DESIGN.md section 5): session (Postgres
// store, default settings), API-key and access-token routes against Express with `helmet` configured to
// send the same headers (>= 0.9x, 0.9x, 0.85x), and against plain Express (report only). The MCP reads
// against a GET of the same route and against the official SDK servers are in mcp.bench.ts.
// BENCH_ONLY=headers,session,api-key,access-token runs only those parts (for profiling).
import { randomBytes, scrypt } from 'node:crypto'
import { compareWithHeaderMiddleware, finish, HELMET_SAME_HEADERS, listen } from '@portcullis/bench'
import { ApiKeyPepperRing, ApiKeyService, apiKey, MemoryApiKeyStore } from '@portcullis/core/api-keys'
import {
  generateLocalSigningKey,
  LocalAccounts,
  LocalSigningKeyRing,
  type PasswordHasher,
} from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { createSecurity } from '@portcullis/express'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
} from '@portcullis/postgres'
import express from 'express'
import helmet from 'helmet'

const ORIGIN = 'https://bench.example'
const body = {
  service: 'billing',
  features: Array.from({ length: 20 }, (_, index) => ({ id: `feature-${index}`, enabled: index % 3 !== 0 })),
}
const handler: express.RequestHandler = (_request, response) => {
  response.json(body)
}

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
const cookie = signIn.transport === 'session' ? (signIn.setCookie.split(';')[0] as string) : ''
const pair = await local.establishSignIn({ accountId, transport: 'tokens' })
const accessToken = pair.transport === 'tokens' ? pair.access_token : ''
const keys = new ApiKeyService({
  store: new MemoryApiKeyStore(),
  peppers: new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }),
  prefix: 'bench',
})
const issued = await keys.issue({ ownerId: 'svc-bench' })

const plain = express()
plain.get('/data', handler)

// What an Express user runs: helmet sending the same headers as Portcullis (and the no-store an
// authenticated answer carries); the bench refuses to measure if the two sides' headers differ.
const helmeted = express()
helmeted.use(helmet(HELMET_SAME_HEADERS as never))
helmeted.get('/data', (_request, response) => {
  response.set('cache-control', 'no-store').json(body)
})

const security = createSecurity({
  onRejection: (event) => {
    if (process.env.BENCH_DEBUG !== undefined) console.error(event)
  },
  mechanisms: [...local.mechanisms, apiKey({ service: keys })],
})
const router = security.router()
router.get('/session', { auth: required('session') }, handler)
router.get('/token', { auth: required('bearer') }, handler)
router.get('/api-key', { auth: required('api-key') }, handler)
const secured = express()
secured.use(security.middleware)
secured.use(router)

const [plainServer, helmetServer, securedServer] = await Promise.all([
  listen(plain),
  listen(helmeted),
  listen(secured),
])
try {
  await compareWithHeaderMiddleware({
    adapter: 'express',
    plain: { name: 'plain express', url: `${plainServer.url}/data` },
    headerMiddleware: { name: 'express + helmet', url: `${helmetServer.url}/data` },
    routes: {
      session: { name: 'portcullis session', url: `${securedServer.url}/session`, headers: { cookie } },
      'api-key': {
        name: 'X-API-Key',
        url: `${securedServer.url}/api-key`,
        headers: { 'x-api-key': issued.value },
      },
      'access-token': {
        name: 'portcullis access token',
        url: `${securedServer.url}/token`,
        headers: { authorization: `Bearer ${accessToken}` },
      },
    },
  })
} finally {
  await Promise.all([plainServer.close(), helmetServer.close(), securedServer.close()])
  await client.close()
  await database.close()
}
finish()
